/**
 * The emulator's replies to a program's probes (cursor position, DA1, XTVERSION, colours ...),
 * gathered while one piece of output is parsed and written back as one reply when the piece is
 * done (parse-feed.ts), instead of one by one.
 *
 * Why: writing a reply is not free: it is a synchronous write to the terminal and, before it, a
 * look at the program's processes in /proc (a reply is input the program has not read yet). A
 * 32 KiB piece of `ESC [ 6 n` holds 8 192 queries: answered one by one, that piece held the
 * server's one thread for 100 to 250 ms (all sessions' calls waited), where the emulator parses
 * it in about 2 ms. Gathered, the piece costs one write.
 *
 * Bound: at most `limitBytes` of replies are gathered per piece (the bytes of replies that may wait
 * for a program at all, see input-writer.ts); the piece's further probes go unanswered, counted in
 * `dropped`. Replies that come outside a piece (none from the emulator today) go out at once.
 */

/** Most reply bytes one piece may produce: the writer's bound on waiting replies. */
export const PIECE_REPLY_BYTES = 64 * 1024;

export class ReplyBatch {
  private _parts: (string | Uint8Array)[] | undefined;
  private _bytes = 0;
  private _dropped = 0;
  private _writes = 0;

  constructor(
    private readonly _send: (data: Uint8Array) => void,
    private readonly _limitBytes = PIECE_REPLY_BYTES,
  ) {}

  /** Replies left unanswered because a piece produced more than the bound. */
  get dropped(): number {
    return this._dropped;
  }

  /** Replies sent so far (a gathered batch counts once). */
  get writes(): number {
    return this._writes;
  }

  /** A piece starts: gather its replies (sending any still gathered first). */
  hold(): void {
    this.release();
    this._parts = [];
    this._bytes = 0;
  }

  /** A reply: gathered while a piece is parsed, else sent at once. */
  add(data: string | Uint8Array): void {
    const bytes = typeof data === 'string' ? Buffer.byteLength(data, 'utf8') : data.length;
    if (bytes === 0) return;
    if (this._parts === undefined) {
      this._write(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
      return;
    }
    if (this._bytes + bytes > this._limitBytes) {
      this._dropped++;
      return;
    }
    this._parts.push(data);
    this._bytes += bytes;
  }

  /** The piece is parsed: its replies go out as one write; no more gathering. */
  release(): void {
    const parts = this._parts;
    this._parts = undefined;
    if (parts === undefined || parts.length === 0) return;
    if (parts.every((p) => typeof p === 'string')) {
      this._write(Buffer.from(parts.join(''), 'utf8'));
    } else {
      const buffers = parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p));
      this._write(Buffer.concat(buffers, this._bytes));
    }
  }

  /** Drops what is gathered (the screen is going away). */
  discard(): void {
    this._parts = undefined;
    this._bytes = 0;
  }

  private _write(data: Uint8Array): void {
    this._writes++;
    this._send(data);
  }
}
