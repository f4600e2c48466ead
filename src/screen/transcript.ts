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
/** Room left in a full chunk beyond which it is copied to its exact size (1/32 of a chunk). */
const MAX_SLACK = 2048;

interface Chunk {
  /** Line number of the chunk's first line. */
  readonly first: number;
  /** CHUNK_BYTES long, or exactly `used` once a chunk with much room left is sealed. */
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

/** Lines read as bytes: line since + 1 + i is utf8[ends[i - 1] ?? 0, ends[i]). */
export interface EncodedSlice {
  readonly since: number;
  readonly utf8: Uint8Array;
  readonly ends: Uint32Array;
  readonly missedLines: number;
}

export class Transcript {
  private readonly _chunks: Chunk[] = [];
  /** The offsets of the open (last) chunk, reused for each: a sealed chunk gets an exact copy. */
  private _openEnds: Uint16Array | undefined;
  /** A chunk's text buffer kept from a dropped chunk for the next one, so a full transcript allocates nothing. */
  private _spare: Buffer | undefined;
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

  /**
   * Bytes allocated: every chunk (kept lines, dropped lines of the oldest chunk, room left in the
   * open one and in full ones), the open chunk's offsets and the spare text buffer.
   */
  get allocatedBytes(): number {
    let sum = (this._openEnds?.byteLength ?? 0) + (this._spare?.byteLength ?? 0);
    for (const chunk of this._chunks) {
      sum += chunk.bytes.byteLength + (chunk.ends === this._openEnds ? 0 : chunk.ends.byteLength);
    }
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
      if (chunk) this._seal(chunk);
      chunk = this._open();
    }
    chunk.bytes.set(bytes.subarray(start, start + length), chunk.used);
    chunk.used += length;
    chunk.ends[chunk.count++] = chunk.used;
    this._total++;
    this._keptBytes += length + INDEX_BYTES_PER_LINE;
    while (this._keptBytes > this.limitBytes) this._dropOldest();
  }

  /**
   * Appends `count` lines, line i written by `write(i, out, at)` into `out` from `at`, returning
   * the offset after it, at most `maxLength` bytes on: in place when the open chunk has room for
   * that, else into `scratch` (of at least `maxLength` bytes) and copied. Rows of a flood cost no
   * copy and no call per line beyond `write`.
   */
  appendRows(
    count: number,
    maxLength: number,
    scratch: Buffer,
    write: (i: number, out: Buffer, at: number) => number,
  ): void {
    let chunk = this._chunks[this._chunks.length - 1];
    for (let i = 0; i < count; i++) {
      if (
        !chunk ||
        chunk.count === CHUNK_LINES ||
        chunk.used + maxLength > CHUNK_BYTES ||
        maxLength + INDEX_BYTES_PER_LINE > this.limitBytes
      ) {
        this.append(scratch, 0, write(i, scratch, 0));
        chunk = this._chunks[this._chunks.length - 1];
        continue;
      }
      const at = chunk.used;
      const end = write(i, chunk.bytes, at);
      chunk.used = end;
      chunk.ends[chunk.count++] = end;
      this._total++;
      this._keptBytes += end - at + INDEX_BYTES_PER_LINE;
      // The newest line fits the bound, so its chunk, the open one, stays.
      while (this._keptBytes > this.limitBytes) this._dropOldest();
    }
  }

  /** Drops every line (the session is closed): the chunks are freed; the count stays. */
  clear(): void {
    this._chunks.length = 0;
    this._openEnds = undefined;
    this._spare = undefined;
    this._dropped = this._total;
    this._keptBytes = 0;
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

  /**
   * As read, but the lines as one copy of their UTF-8 bytes and their end offsets in it, for a
   * search that decodes them elsewhere: no string per line is built here.
   */
  readBytes(since: number, maxLines: number, maxBytes: number, end = this._total): EncodedSlice {
    const last = Math.max(0, Math.min(end, this._total));
    const start = Math.min(Math.max(since, this._dropped), last);
    let n = start;
    let bytes = 0;
    // First the extent, then one copy per chunk it spans.
    extent: while (n < last && n - start < maxLines) {
      const [chunk, first] = this._locate(n + 1);
      for (let i = first; i < chunk.count && n < last && n - start < maxLines; i++) {
        const size = (chunk.ends[i] as number) - (i === 0 ? 0 : (chunk.ends[i - 1] as number));
        if (n > start && bytes + size > maxBytes) break extent;
        bytes += size;
        n++;
      }
    }
    const utf8 = new Uint8Array(bytes);
    const ends = new Uint32Array(n - start);
    let at = 0;
    for (let line = start + 1; line <= n; ) {
      const [chunk, i] = this._locate(line);
      const count = Math.min(chunk.count - i, n - line + 1);
      const from = i === 0 ? 0 : (chunk.ends[i - 1] as number);
      const to = chunk.ends[i + count - 1] as number;
      utf8.set(chunk.bytes.subarray(from, to), at);
      for (let k = 0; k < count; k++)
        ends[line - start - 1 + k] = at + (chunk.ends[i + k] as number) - from;
      at += to - from;
      line += count;
    }
    const missedLines = Math.max(0, Math.min(this._dropped, last) - since);
    return { since: start, utf8, ends, missedLines };
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
    if (i + 1 === chunk.count) {
      this._chunks.shift();
      if (chunk.bytes.length === CHUNK_BYTES) this._spare = chunk.bytes;
    }
  }

  /** A new open chunk after the last line, on the spare text buffer when there is one. */
  private _open(): Chunk {
    const bytes = this._spare ?? Buffer.allocUnsafeSlow(CHUNK_BYTES);
    this._spare = undefined;
    this._openEnds ??= new Uint16Array(CHUNK_LINES);
    const chunk = { first: this._total + 1, bytes, ends: this._openEnds, count: 0, used: 0 };
    this._chunks.push(chunk);
    return chunk;
  }

  /** Gives a full chunk offsets of its own, and its exact size when much room is left in it. */
  private _seal(chunk: Chunk): void {
    chunk.ends = chunk.ends.slice(0, chunk.count);
    if (CHUNK_BYTES - chunk.used > MAX_SLACK) {
      const bytes = Buffer.allocUnsafeSlow(chunk.used);
      chunk.bytes.copy(bytes, 0, 0, chunk.used);
      this._spare = chunk.bytes;
      chunk.bytes = bytes;
    }
  }
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
