/**
 * A session's transcript: every line that scrolled into history, bounded by bytes: past the bound
 * the oldest lines are dropped, and counted. Line N is the N-th line appended (1-based). Lines are
 * kept as UTF-8 bytes in chunks with an offset index (transcript-chunk.ts, chunk-list.ts); full
 * chunks go to a ChunkStore when there is one (chunk-store.ts), else stay in memory. Pages are
 * read by transcript-read.ts. A stored chunk that cannot be read back (its file damaged) is lost:
 * it and the lines before it are dropped, counted like those past the bound, and storeError says
 * why; nothing throws. Pure but for what the store does.
 * @see spec/guarantees.md (Transcript, Bounds)
 */
import { ChunkList } from './chunk-list.js';
import { ChunkShelf, type ChunkStore, DamagedChunkError } from './chunk-store.js';
import {
  CHUNK_BYTES,
  CHUNK_LINES,
  type Chunk,
  fitLength,
  INDEX_BYTES_PER_LINE,
} from './transcript-chunk.js';
import {
  type EncodedSlice,
  type KeptLines,
  readLineBytes,
  readLines,
  type TranscriptSlice,
} from './transcript-read.js';

export class Transcript {
  private _total = 0;
  private _dropped = 0;
  private _keptBytes = 0;
  private readonly _shelf: ChunkShelf;
  private readonly _list: ChunkList;
  /** The list's chunks, oldest first (the same array, for the loops that append and drop). */
  private readonly _chunks: Chunk[];

  /**
   * `limitBytes`: the most the kept lines may cost (text plus index), 0 keeps none. `store`: where
   * full chunks go (none: they stay in memory); `storeError`: why there is none, when that matters.
   */
  constructor(
    readonly limitBytes: number,
    store?: ChunkStore,
    storeError?: string,
  ) {
    this._shelf = new ChunkShelf(store, storeError);
    this._list = new ChunkList(this._shelf, () => this._dropChunk());
    this._chunks = this._list.chunks;
  }

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
   * The latest failure to store a chunk (the disk is full) or to read one back (its file is
   * damaged), for as long as the transcript lives.
   */
  get storeError(): string | undefined {
    return this._shelf.error;
  }

  /**
   * Bytes allocated in memory: chunks held there (the open one, unstored ones; every one without
   * a store), the open chunk's offsets, the spare text buffer and the read caches.
   */
  get allocatedBytes(): number {
    return this._list.allocatedBytes;
  }

  /** Appends one line given as UTF-8 bytes `bytes[start, end)`, then drops what the bound excludes. */
  append(bytes: Uint8Array, start = 0, end = bytes.length): void {
    const length = fitLength(bytes, start, end);
    if (length + INDEX_BYTES_PER_LINE > this.limitBytes) {
      // Alone over the bound: it and every line before it are dropped.
      while (this._chunks.length > 0) this._dropChunk();
      this._total++;
      this._dropped = this._total;
      return;
    }
    const chunk = this._list.roomFor(length, this._total + 1);
    (chunk.bytes as Buffer).set(bytes.subarray(start, start + length), chunk.used);
    chunk.used += length;
    (chunk.ends as Uint16Array)[chunk.count++] = chunk.used;
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
    const fits = maxLength + INDEX_BYTES_PER_LINE <= this.limitBytes;
    let chunk = this._chunks[this._chunks.length - 1];
    for (let i = 0; i < count; i++) {
      if (
        !fits ||
        chunk === undefined ||
        chunk.count === CHUNK_LINES ||
        chunk.used + maxLength > CHUNK_BYTES ||
        chunk.bytes === undefined
      ) {
        const length = write(i, scratch, 0);
        if (fits) this._appendScratch(scratch, length);
        else this.append(scratch, 0, length);
        chunk = this._chunks[this._chunks.length - 1];
        continue;
      }
      const at = chunk.used;
      const end = write(i, chunk.bytes, at);
      chunk.used = end;
      (chunk.ends as Uint16Array)[chunk.count++] = end;
      this._total++;
      this._keptBytes += end - at + INDEX_BYTES_PER_LINE;
      // The newest line fits the bound, so its chunk, the open one, stays.
      while (this._keptBytes > this.limitBytes) this._dropOldest();
    }
  }

  /**
   * Appends the line written at the start of `scratch` (`length` bytes, which fit the bound),
   * copied where append would put it, without a view of the scratch per line.
   */
  private _appendScratch(scratch: Buffer, length: number): void {
    const fitted = fitLength(scratch, 0, length);
    const chunk = this._list.roomFor(fitted, this._total + 1);
    scratch.copy(chunk.bytes as Buffer, chunk.used, 0, fitted);
    chunk.used += fitted;
    (chunk.ends as Uint16Array)[chunk.count++] = chunk.used;
    this._total++;
    this._keptBytes += fitted + INDEX_BYTES_PER_LINE;
    while (this._keptBytes > this.limitBytes) this._dropOldest();
  }

  /** Drops every line (the session is closed): chunks and stored files go; the count stays. */
  clear(): void {
    this._list.clear();
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
    return this._survive(() => readLines(this._kept(), since, maxLines, maxBytes, end));
  }

  /**
   * As read, but the lines as one copy of their UTF-8 bytes and their end offsets in it, for a
   * search that decodes them elsewhere: no string per line is built here.
   */
  readBytes(since: number, maxLines: number, maxBytes: number, end = this._total): EncodedSlice {
    return this._survive(() => readLineBytes(this._kept(), since, maxLines, maxBytes, end));
  }

  /**
   * Runs `read`; when a chunk it reads is damaged, drops that chunk and the lines before it, then
   * reads again (it ends: each retry drops a stored chunk, and the open one is in memory).
   */
  private _survive<T>(read: () => T): T {
    for (;;) {
      try {
        return read();
      } catch (err) {
        if (!(err instanceof DamagedChunkError)) throw err;
        this._dropThrough(err.chunk);
      }
    }
  }

  /** Drops every line up to the end of chunk `damaged`; the chunks after it are kept whole. */
  private _dropThrough(damaged: Chunk): void {
    for (let k = this._chunks.indexOf(damaged); k >= 0; k--) {
      const chunk = this._chunks[0] as Chunk;
      this._dropped = Math.max(this._dropped, chunk.first + chunk.count - 1);
      this._list.forgetOldest();
    }
    let kept = 0;
    for (const chunk of this._chunks) kept += chunk.used + chunk.count * INDEX_BYTES_PER_LINE;
    this._keptBytes = kept;
  }

  /** The oldest chunk's offsets; undefined when they cannot be read back (it was dropped whole). */
  private _oldestIndex(chunk: Chunk): Uint16Array | undefined {
    if (chunk.ends) return chunk.ends;
    try {
      return this._shelf.storedIndex(chunk);
    } catch (err) {
      if (!(err instanceof DamagedChunkError)) throw err;
      this._dropThrough(chunk);
      return undefined;
    }
  }

  private _kept(): KeptLines {
    const list = this._list;
    const view = (chunk: Chunk) => list.view(chunk);
    return { chunks: this._chunks, dropped: this._dropped, total: this._total, view };
  }

  private _dropOldest(): void {
    const chunk = this._chunks[0] as Chunk;
    const i = this._dropped + 1 - chunk.first;
    const ends = this._oldestIndex(chunk);
    if (!ends) return;
    const from = i === 0 ? 0 : (ends[i - 1] as number);
    this._keptBytes -= (ends[i] as number) - from + INDEX_BYTES_PER_LINE;
    this._dropped++;
    if (i + 1 === chunk.count) this._list.forgetOldest();
  }

  /** Drops the oldest chunk's kept lines at once. */
  private _dropChunk(): void {
    const chunk = this._chunks[0] as Chunk;
    const i = this._dropped + 1 - chunk.first;
    if (i === 0) {
      this._keptBytes -= chunk.used + chunk.count * INDEX_BYTES_PER_LINE;
    } else {
      const ends = this._oldestIndex(chunk);
      if (!ends) return;
      const from = ends[i - 1] as number;
      this._keptBytes -= chunk.used - from + (chunk.count - i) * INDEX_BYTES_PER_LINE;
    }
    this._dropped = chunk.first + chunk.count - 1;
    this._list.forgetOldest();
  }
}
