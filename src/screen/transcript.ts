/**
 * A session's transcript: every line that scrolled into history, as UTF-8 bytes in chunks with an
 * offset index (no string per line), bounded by bytes: past the bound the oldest lines are
 * dropped, and counted. Line N is the N-th line appended (1-based). Pure.
 * @see spec/tools.md (terminal_snapshot, Bounds)
 */

/** What one line costs against the bound besides its text: its entry in the offset index. */
export const INDEX_BYTES_PER_LINE = 2;
/** Text bytes one chunk holds at most (offsets are 16-bit); a longer line is cut to fit. */
export const CHUNK_BYTES = 0xffff;
/** Lines one chunk holds at most. */
export const CHUNK_LINES = 16_384;
/** Capacity a chunk starts with; it doubles up to CHUNK_BYTES / CHUNK_LINES as lines arrive. */
const FIRST_CAPACITY = 1024;

interface Chunk {
  /** Line number of the chunk's first line. */
  readonly first: number;
  bytes: Buffer;
  /** End offset in `bytes` of each line; line i spans [ends[i - 1] ?? 0, ends[i]). */
  ends: Uint16Array;
  count: number;
  used: number;
}

/** Lines read from a transcript: those after line `since`, up to an end line. */
export interface TranscriptSlice {
  /** The line the slice starts after: the `since` asked for, or later when lines were dropped. */
  readonly since: number;
  /** Oldest first; lines[i] is line since + 1 + i. */
  readonly lines: string[];
  /** Lines after the `since` asked for that were dropped for the bound before they were read. */
  readonly missedLines: number;
}

export class Transcript {
  private readonly _chunks: Chunk[] = [];
  private _total = 0;
  private _dropped = 0;
  private _keptBytes = 0;

  /** `limitBytes`: the most the kept lines may cost (text plus index), 0 keeps none. */
  constructor(readonly limitBytes: number) {}

  /** Lines ever appended: the number of the last one. */
  get total(): number {
    return this._total;
  }

  /** Oldest lines dropped for the bound: lines 1..dropped are gone. */
  get dropped(): number {
    return this._dropped;
  }

  /** What the kept lines cost against the bound: their UTF-8 bytes plus INDEX_BYTES_PER_LINE each. */
  get keptBytes(): number {
    return this._keptBytes;
  }

  /** Bytes allocated for chunks (kept lines, dropped lines of a chunk still in use, spare room). */
  get allocatedBytes(): number {
    let sum = 0;
    for (const chunk of this._chunks) sum += chunk.bytes.byteLength + chunk.ends.byteLength;
    return sum;
  }

  /** Appends one line given as UTF-8 bytes `bytes[start, end)`, then drops what the bound excludes. */
  append(bytes: Uint8Array, start = 0, end = bytes.length): void {
    const length = fitLength(bytes, start, end);
    if (length + INDEX_BYTES_PER_LINE > this.limitBytes) {
      // Alone over the bound: it and every line before it are dropped.
      this._chunks.length = 0;
      this._total++;
      this._dropped = this._total;
      this._keptBytes = 0;
      return;
    }
    let chunk = this._chunks[this._chunks.length - 1];
    if (!chunk || chunk.count === CHUNK_LINES || chunk.used + length > CHUNK_BYTES) {
      if (chunk) seal(chunk);
      chunk = openChunk(this._total + 1);
      this._chunks.push(chunk);
    }
    reserve(chunk, length);
    const target = chunk.bytes;
    let at = chunk.used;
    if (length < 64) {
      // Short lines are most lines of a flood; a loop beats a native copy's call cost here.
      for (let i = start; i < start + length; i++) target[at++] = bytes[i] as number;
    } else {
      target.set(bytes.subarray(start, start + length), at);
      at += length;
    }
    chunk.used = at;
    chunk.ends[chunk.count++] = chunk.used;
    this._total++;
    this._keptBytes += length + INDEX_BYTES_PER_LINE;
    while (this._keptBytes > this.limitBytes) this._dropOldest();
  }

  /** Appends one line of text (encoded as UTF-8). */
  appendText(text: string): void {
    this.append(Buffer.from(text, 'utf8'));
  }

  /**
   * The kept lines after line `since` up to line `end` (default: the last), at most `maxLines`
   * and, past the first line, at most `maxBytes` of text.
   */
  read(since: number, maxLines: number, maxBytes: number, end = this._total): TranscriptSlice {
    const last = Math.max(0, Math.min(end, this._total));
    const start = Math.min(Math.max(since, this._dropped), last);
    const lines: string[] = [];
    let bytes = 0;
    for (let n = start + 1; n <= last && lines.length < maxLines; n++) {
      const [chunk, i] = this._locate(n);
      const from = i === 0 ? 0 : (chunk.ends[i - 1] as number);
      const to = chunk.ends[i] as number;
      if (lines.length > 0 && bytes + (to - from) > maxBytes) break;
      bytes += to - from;
      lines.push(chunk.bytes.toString('utf8', from, to));
    }
    const missedLines = Math.max(0, Math.min(this._dropped, last) - since);
    return { since: start, lines, missedLines };
  }

  /** The chunk holding kept line `n` and its index there. */
  private _locate(n: number): [Chunk, number] {
    const chunks = this._chunks;
    let lo = 0;
    let hi = chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((chunks[mid] as Chunk).first <= n) lo = mid;
      else hi = mid - 1;
    }
    const chunk = chunks[lo] as Chunk;
    return [chunk, n - chunk.first];
  }

  private _dropOldest(): void {
    const chunk = this._chunks[0] as Chunk;
    const i = this._dropped + 1 - chunk.first;
    const from = i === 0 ? 0 : (chunk.ends[i - 1] as number);
    this._keptBytes -= (chunk.ends[i] as number) - from + INDEX_BYTES_PER_LINE;
    this._dropped++;
    if (i + 1 === chunk.count) this._chunks.shift();
  }
}

function openChunk(first: number): Chunk {
  return {
    first,
    bytes: Buffer.allocUnsafeSlow(FIRST_CAPACITY),
    ends: new Uint16Array(FIRST_CAPACITY / 4),
    count: 0,
    used: 0,
  };
}

/** Grows the chunk's arrays, by doubling, to take one more line of `length` bytes. */
function reserve(chunk: Chunk, length: number): void {
  if (chunk.used + length > chunk.bytes.length) {
    let size = chunk.bytes.length * 2;
    while (size < chunk.used + length) size *= 2;
    const bytes = Buffer.allocUnsafeSlow(Math.min(size, CHUNK_BYTES));
    chunk.bytes.copy(bytes, 0, 0, chunk.used);
    chunk.bytes = bytes;
  }
  if (chunk.count === chunk.ends.length) {
    const ends = new Uint16Array(Math.min(chunk.ends.length * 2, CHUNK_LINES));
    ends.set(chunk.ends);
    chunk.ends = ends;
  }
}

/** Shrinks a full chunk's arrays to what it holds. */
function seal(chunk: Chunk): void {
  if (chunk.bytes.length > chunk.used) {
    const bytes = Buffer.allocUnsafeSlow(chunk.used);
    chunk.bytes.copy(bytes, 0, 0, chunk.used);
    chunk.bytes = bytes;
  }
  if (chunk.ends.length > chunk.count) chunk.ends = chunk.ends.slice(0, chunk.count);
}

/** How much of `bytes[start, end)` fits in a chunk, cut at a character boundary. */
function fitLength(bytes: Uint8Array, start: number, end: number): number {
  let length = end - start;
  if (length <= CHUNK_BYTES) return length;
  length = CHUNK_BYTES;
  // Step back over continuation bytes so the cut falls before a character's first byte.
  while (length > 0 && ((bytes[start + length] as number) & 0xc0) === 0x80) length--;
  return length;
}
