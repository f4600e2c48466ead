/**
 * Finds the drain marker in the PTY's output stream and removes it. When the program exits,
 * agent-tty writes a unique marker into the terminal through its own slave descriptor; every byte
 * the program wrote comes before it, so seeing the marker proves all of the output was read.
 * Pure: no I/O, unit-tested on every split of the stream.
 */

export interface MarkerScan {
  /** Bytes to pass on, in order, with the marker removed. */
  readonly chunks: Uint8Array[];
  /** True once the marker has been seen (in this chunk or before). */
  readonly found: boolean;
  /** The bytes that came before the marker (all of `chunks` when it was not found here). */
  readonly before: Uint8Array[];
  /** The bytes after the marker in this chunk (empty unless it was found here). */
  readonly after: Uint8Array;
}

const EMPTY = new Uint8Array(0);

export class DrainMarker {
  private _held: Buffer = Buffer.alloc(0);
  private _found = false;

  constructor(readonly bytes: Buffer) {
    if (bytes.length === 0) throw new Error('empty drain marker');
  }

  get found(): boolean {
    return this._found;
  }

  /** Scans one chunk; holds back a tail that could be the start of a split marker. */
  scan(chunk: Uint8Array): MarkerScan {
    if (this._found) return { chunks: [chunk], found: true, before: [], after: chunk };
    const buf = this._held.length ? Buffer.concat([this._held, chunk]) : Buffer.from(chunk);
    const at = buf.indexOf(this.bytes);
    if (at !== -1) {
      this._found = true;
      this._held = Buffer.alloc(0);
      const before = buf.subarray(0, at);
      const after = buf.subarray(at + this.bytes.length);
      return {
        chunks: [before, after].filter((c) => c.length > 0),
        found: true,
        before: before.length ? [before] : [],
        after,
      };
    }
    const keep = partialSuffix(buf, this.bytes);
    this._held = Buffer.from(buf.subarray(buf.length - keep));
    const out = buf.subarray(0, buf.length - keep);
    const chunks = out.length ? [out] : [];
    return { chunks, found: false, before: chunks, after: EMPTY };
  }

  /** Releases bytes held back for a marker that never completed. */
  flush(): Uint8Array {
    const held = this._held;
    this._held = Buffer.alloc(0);
    return held;
  }
}

/** Length of the longest proper prefix of `marker` that `buf` ends with. */
function partialSuffix(buf: Buffer, marker: Buffer): number {
  const max = Math.min(marker.length - 1, buf.length);
  for (let k = max; k > 0; k--) {
    if (buf.compare(marker, 0, k, buf.length - k, buf.length) === 0) return k;
  }
  return 0;
}

/** A fresh marker: an OSC string that terminals ignore, in characters no tty setting rewrites. */
export function createDrainMarker(random: () => number = Math.random): DrainMarker {
  let nonce = '';
  while (nonce.length < 16)
    nonce += Math.floor(random() * 36 ** 4)
      .toString(36)
      .toUpperCase();
  return new DrainMarker(Buffer.from(`\x1b]7799;AGENTTTY${nonce.slice(0, 16)}\x07`, 'latin1'));
}
