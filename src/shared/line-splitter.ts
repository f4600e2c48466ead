/**
 * Splits a byte stream into newline-delimited lines without ever holding more than one line's
 * limit: a line that grows past it is discarded as it streams, keeping only its first and last
 * bytes (enough to recover a request id). Pure; the transport (stdio-transport.ts) does the I/O.
 */

/** Bytes kept from each end of a discarded line. */
export const EDGE_BYTES = 512;

export type LineEvent =
  | { readonly kind: 'line'; readonly text: string }
  | {
      readonly kind: 'overlong';
      readonly bytes: number;
      readonly head: string;
      readonly tail: string;
    };

const EMPTY = Buffer.alloc(0);

export class LineSplitter {
  private _parts: Buffer[] = [];
  private _length = 0;
  private _discarding = false;
  private _head: Buffer = EMPTY;
  private _tail: Buffer = EMPTY;

  constructor(private readonly _maxLineBytes: number) {}

  /** Whether the line not yet ended has passed the limit (it will end as 'overlong'). */
  get overflowing(): boolean {
    return this._discarding;
  }

  /** Bytes held for the line not yet ended (never more than the limit). */
  get pendingBytes(): number {
    return this._discarding ? this._head.length + this._tail.length : this._length;
  }

  /** Feeds `chunk`; calls `emit` for every line it completes, in order. */
  push(chunk: Buffer, emit: (event: LineEvent) => void): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      this._take(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) return;
      emit(this._finish());
      start = newline + 1;
    }
  }

  private _take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this._discarding) {
      this._length += piece.length;
      this._tail = lastBytes(Buffer.concat([this._tail, lastBytes(piece)]));
      return;
    }
    if (this._length + piece.length <= this._maxLineBytes) {
      this._parts.push(piece);
      this._length += piece.length;
      return;
    }
    // Over the limit: keep the edges and let the rest go as it arrives.
    this._head = firstBytes([...this._parts, piece]);
    const before = this._parts.at(-1) ?? EMPTY;
    this._tail = lastBytes(Buffer.concat([lastBytes(before), lastBytes(piece)]));
    this._length += piece.length;
    this._parts = [];
    this._discarding = true;
  }

  private _finish(): LineEvent {
    const event: LineEvent = this._discarding
      ? {
          kind: 'overlong',
          bytes: this._length,
          head: this._head.toString('utf8'),
          tail: this._tail.toString('utf8').replace(/\r$/, ''),
        }
      : { kind: 'line', text: joinParts(this._parts, this._length).replace(/\r$/, '') };
    this._parts = [];
    this._length = 0;
    this._discarding = false;
    this._head = EMPTY;
    this._tail = EMPTY;
    return event;
  }
}

function joinParts(parts: Buffer[], length: number): string {
  if (parts.length === 1) return (parts[0] as Buffer).toString('utf8');
  return Buffer.concat(parts, length).toString('utf8');
}

function firstBytes(parts: readonly Buffer[]): Buffer {
  const kept: Buffer[] = [];
  let length = 0;
  for (const part of parts) {
    if (length >= EDGE_BYTES) break;
    const take = part.subarray(0, EDGE_BYTES - length);
    kept.push(take);
    length += take.length;
  }
  return Buffer.concat(kept, length);
}

function lastBytes(buffer: Buffer): Buffer {
  return buffer.length <= EDGE_BYTES
    ? Buffer.from(buffer)
    : Buffer.from(buffer.subarray(buffer.length - EDGE_BYTES));
}
