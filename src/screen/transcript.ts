/**
 * A session's transcript: every line that scrolled into history, as UTF-8 bytes in chunks with an
 * offset index (no string per line), bounded by bytes: past the bound the oldest lines are
 * dropped, and counted. Line N is the N-th line appended (1-based). The chunk being filled is in
 * memory; a full one goes to a ChunkStore (session/transcript-files.ts: files on disk) when there
 * is one, and is read back from it, a chunk at a time, when lines are read. Without a store every
 * chunk stays in memory. Pure but for what the store does.
 * @see spec/tools.md (Transcript, Bounds)
 */

/** What one line costs against the bound besides its text: its entry in the offset index. */
export const INDEX_BYTES_PER_LINE = 2;
/** Text bytes one chunk holds at most (offsets are 16-bit); a longer line is cut to fit. */
export const CHUNK_BYTES = 0xffff;
/** Lines one chunk holds at most. */
export const CHUNK_LINES = 16_384;
/**
 * Full chunks that could not be stored (the disk is full) wait in memory up to this many bytes
 * for a later write; past it the oldest lines are dropped, whole chunks at a time, stored ones
 * first, which frees room on the disk for the newer ones.
 */
export const MAX_UNSTORED_BYTES = 4 * 1024 * 1024;
/** Room left in a full chunk beyond which it is copied to its exact size (1/32 of a chunk). */
const MAX_SLACK = 2048;
/** Stored chunks whose text is kept in memory for reading, most recently read first. */
const READ_CACHE_CHUNKS = 2;
const SLOT_BYTES = CHUNK_LINES * INDEX_BYTES_PER_LINE + CHUNK_BYTES + 1;

/** Where a store keeps a chunk: its index (2 bytes per line) followed by its text. */
export interface StoredChunk {
  readonly segment: number;
  readonly offset: number;
  readonly length: number;
}

/** Keeps full chunks out of memory (session/transcript-files.ts: a session's private files). */
export interface ChunkStore {
  /** Stores a chunk's index then its text; throws when it cannot (the disk is full). */
  put(index: Uint8Array, text: Uint8Array): StoredChunk;
  /** Reads the first `length` bytes of a stored chunk into `into`; throws when it cannot. */
  get(at: StoredChunk, into: Uint8Array, length: number): void;
  /** A stored chunk's lines are all dropped: its room may be given back. */
  release(at: StoredChunk): void;
  /** Removes everything stored; nothing is stored after. */
  remove(): void;
}

interface Chunk {
  /** Line number of the chunk's first line. */
  readonly first: number;
  count: number;
  /** Text bytes. */
  used: number;
  /** The text, while the chunk is in memory: CHUNK_BYTES long while open, else its exact size or near. */
  bytes: Buffer | undefined;
  /** End offset in the text of each line; line i spans [ends[i - 1] ?? 0, ends[i]). */
  ends: Uint16Array | undefined;
  stored: StoredChunk | undefined;
}

/** A chunk's text and index, wherever it is kept. */
interface ChunkView {
  readonly bytes: Buffer;
  readonly ends: Uint16Array;
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
  /** A chunk's text buffer kept for the next one, so a full transcript allocates nothing. */
  private _spare: Buffer | undefined;
  private _total = 0;
  private _dropped = 0;
  private _keptBytes = 0;
  private _unstoredBytes = 0;
  /** The oldest chunk's index when it is stored: lines are dropped from it one at a time. */
  private _oldestEnds: { chunk: Chunk; ends: Uint16Array } | undefined;
  private _readCache: { chunk: Chunk; view: ChunkView; slot: Buffer }[] = [];
  private _storeError: string | undefined;
  private _store: ChunkStore | undefined;

  /**
   * `limitBytes`: the most the kept lines may cost (text plus index), 0 keeps none. `store`: where
   * full chunks go (none: they stay in memory); `storeError`: why there is none, when that matters.
   */
  constructor(
    readonly limitBytes: number,
    store?: ChunkStore,
    storeError?: string,
  ) {
    this._store = store;
    this._storeError = storeError;
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

  /** The latest failure to store a chunk (the disk is full), for as long as the transcript lives. */
  get storeError(): string | undefined {
    return this._storeError;
  }

  /**
   * Bytes allocated in memory: chunks held there (the open one, unstored ones; every one without
   * a store), the open chunk's offsets, the spare text buffer and the read caches.
   */
  get allocatedBytes(): number {
    let sum = (this._openEnds?.byteLength ?? 0) + (this._spare?.byteLength ?? 0);
    for (const chunk of this._chunks) {
      sum += chunk.bytes?.byteLength ?? 0;
      if (chunk.ends !== this._openEnds) sum += chunk.ends?.byteLength ?? 0;
    }
    for (const entry of this._readCache) sum += entry.slot.byteLength;
    return sum + (this._oldestEnds?.ends.byteLength ?? 0);
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
    const chunk = this._roomFor(length);
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
    const chunk = this._roomFor(fitted);
    scratch.copy(chunk.bytes as Buffer, chunk.used, 0, fitted);
    chunk.used += fitted;
    (chunk.ends as Uint16Array)[chunk.count++] = chunk.used;
    this._total++;
    this._keptBytes += fitted + INDEX_BYTES_PER_LINE;
    while (this._keptBytes > this.limitBytes) this._dropOldest();
  }

  /** Drops every line (the session is closed): chunks and stored files go; the count stays. */
  clear(): void {
    this._chunks.length = 0;
    this._openEnds = undefined;
    this._spare = undefined;
    this._oldestEnds = undefined;
    this._readCache = [];
    this._dropped = this._total;
    this._keptBytes = 0;
    this._unstoredBytes = 0;
    this._store?.remove();
    this._store = undefined;
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
    let n = start + 1;
    read: while (n <= last && lines.length < maxLines) {
      const [chunk, first] = this._locate(n);
      const view = this._view(chunk);
      for (let i = first; i < chunk.count && n <= last && lines.length < maxLines; i++, n++) {
        const from = i === 0 ? 0 : (view.ends[i - 1] as number);
        const to = view.ends[i] as number;
        if (lines.length > 0 && bytes + (to - from) > maxBytes) break read;
        bytes += to - from;
        lines.push(view.bytes.toString('utf8', from, to));
      }
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
    const parts: Uint8Array[] = [];
    const ends: number[] = [];
    let bytes = 0;
    let n = start;
    // One copy per chunk the lines span.
    while (n < last && n - start < maxLines) {
      const [chunk, first] = this._locate(n + 1);
      const view = this._view(chunk);
      const base = first === 0 ? 0 : (view.ends[first - 1] as number);
      let i = first;
      for (; i < chunk.count && n < last && n - start < maxLines; i++) {
        const size = (view.ends[i] as number) - (i === 0 ? 0 : (view.ends[i - 1] as number));
        if (n > start && bytes + size > maxBytes) break;
        bytes += size;
        ends.push(bytes);
        n++;
      }
      const to = i === 0 ? 0 : (view.ends[i - 1] as number);
      if (i > first) parts.push(Uint8Array.prototype.slice.call(view.bytes, base, to));
      if (i < chunk.count && n < last && n - start < maxLines) break;
    }
    const utf8 = parts.length === 1 ? (parts[0] as Uint8Array) : concat(parts, bytes);
    const missedLines = Math.max(0, Math.min(this._dropped, last) - since);
    return { since: start, utf8, ends: Uint32Array.from(ends), missedLines };
  }

  /** The open chunk, with room for a line of `length` bytes (sealing the full one first). */
  private _roomFor(length: number): Chunk {
    const chunk = this._chunks[this._chunks.length - 1];
    if (
      chunk?.bytes !== undefined &&
      chunk.ends === this._openEnds &&
      chunk.count < CHUNK_LINES &&
      chunk.used + length <= CHUNK_BYTES
    ) {
      return chunk;
    }
    if (chunk) this._seal(chunk);
    return this._open();
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

  /** A chunk's text and index: in memory, or read back from the store into a cache slot. */
  private _view(chunk: Chunk): ChunkView {
    if (chunk.bytes !== undefined && chunk.ends !== undefined) {
      return { bytes: chunk.bytes, ends: chunk.ends };
    }
    const cache = this._readCache;
    const hit = cache.findIndex((entry) => entry.chunk === chunk);
    if (hit >= 0) {
      const [entry] = cache.splice(hit, 1);
      cache.unshift(entry as (typeof cache)[number]);
      return (entry as (typeof cache)[number]).view;
    }
    const stored = chunk.stored as StoredChunk;
    const reused = cache.length >= READ_CACHE_CHUNKS ? cache.pop() : undefined;
    const slot = reused?.slot ?? Buffer.allocUnsafeSlow(SLOT_BYTES);
    (this._store as ChunkStore).get(stored, slot, stored.length);
    const indexBytes = chunk.count * INDEX_BYTES_PER_LINE;
    const view = {
      ends: new Uint16Array(slot.buffer, slot.byteOffset, chunk.count),
      bytes: slot.subarray(indexBytes, indexBytes + chunk.used),
    };
    cache.unshift({ chunk, view, slot });
    return view;
  }

  /** The end offsets of the oldest chunk, read back from the store once while lines go from it. */
  private _oldestIndex(chunk: Chunk): Uint16Array {
    if (chunk.ends !== undefined) return chunk.ends;
    if (this._oldestEnds?.chunk === chunk) return this._oldestEnds.ends;
    const ends = new Uint16Array(chunk.count);
    const bytes = new Uint8Array(ends.buffer);
    (this._store as ChunkStore).get(chunk.stored as StoredChunk, bytes, bytes.byteLength);
    this._oldestEnds = { chunk, ends };
    return ends;
  }

  private _dropOldest(): void {
    const chunk = this._chunks[0] as Chunk;
    const i = this._dropped + 1 - chunk.first;
    const ends = this._oldestIndex(chunk);
    const from = i === 0 ? 0 : (ends[i - 1] as number);
    this._keptBytes -= (ends[i] as number) - from + INDEX_BYTES_PER_LINE;
    this._dropped++;
    if (i + 1 === chunk.count) this._forget(chunk);
  }

  /** Drops the oldest chunk's kept lines at once. */
  private _dropChunk(): void {
    const chunk = this._chunks[0] as Chunk;
    const i = this._dropped + 1 - chunk.first;
    if (i === 0) {
      this._keptBytes -= chunk.used + chunk.count * INDEX_BYTES_PER_LINE;
    } else {
      const ends = this._oldestIndex(chunk);
      const from = ends[i - 1] as number;
      this._keptBytes -= chunk.used - from + (chunk.count - i) * INDEX_BYTES_PER_LINE;
    }
    this._dropped = chunk.first + chunk.count - 1;
    this._forget(chunk);
  }

  /** The oldest chunk has no kept line left: it goes, its room given back. */
  private _forget(chunk: Chunk): void {
    this._chunks.shift();
    if (this._oldestEnds?.chunk === chunk) this._oldestEnds = undefined;
    this._readCache = this._readCache.filter((entry) => entry.chunk !== chunk);
    if (chunk.stored) this._store?.release(chunk.stored);
    else if (this._store && chunk.ends !== this._openEnds) this._unstoredBytes -= chunkBytes(chunk);
    if (chunk.bytes?.length === CHUNK_BYTES) this._spare = chunk.bytes;
    // The open chunk itself: the next line opens a new one.
    if (chunk.ends === this._openEnds) this._openEnds = undefined;
  }

  /** A new open chunk after the last line, on the spare text buffer when there is one. */
  private _open(): Chunk {
    const bytes = this._spare ?? Buffer.allocUnsafeSlow(CHUNK_BYTES);
    this._spare = undefined;
    this._openEnds ??= new Uint16Array(CHUNK_LINES);
    const chunk: Chunk = {
      first: this._total + 1,
      bytes,
      ends: this._openEnds,
      count: 0,
      used: 0,
      stored: undefined,
    };
    this._chunks.push(chunk);
    return chunk;
  }

  /** A full chunk goes to the store, or stays in memory with offsets of its own. */
  private _seal(chunk: Chunk): void {
    const bytes = chunk.bytes as Buffer;
    const ends = chunk.ends as Uint16Array;
    if (this._store !== undefined) {
      this._storeUnstored();
      if (this._unstoredBytes === 0 && this._put(chunk, ends, bytes)) {
        this._spare = bytes;
        return;
      }
    }
    chunk.ends = ends.slice(0, chunk.count);
    if (CHUNK_BYTES - chunk.used > MAX_SLACK) {
      chunk.bytes = Buffer.allocUnsafeSlow(chunk.used);
      bytes.copy(chunk.bytes, 0, 0, chunk.used);
      this._spare = bytes;
    }
    if (this._store === undefined) return;
    this._unstoredBytes += chunkBytes(chunk);
    // The disk stays full: the oldest lines go, stored ones first, until the rest fit in memory.
    while (this._unstoredBytes > MAX_UNSTORED_BYTES && this._chunks.length > 1) {
      this._dropChunk();
      this._storeUnstored();
    }
  }

  /** Stores chunks that could not be stored before, oldest first, while the store takes them. */
  private _storeUnstored(): void {
    if (this._unstoredBytes === 0) return;
    for (const chunk of this._chunks) {
      if (chunk.stored || chunk.ends === this._openEnds) continue;
      const ends = chunk.ends as Uint16Array;
      const bytes = chunk.bytes as Buffer;
      const size = chunkBytes(chunk);
      if (!this._put(chunk, ends, bytes)) return;
      this._unstoredBytes -= size;
    }
  }

  /** Stores `chunk`; false (the reason kept) when the store cannot take it. */
  private _put(chunk: Chunk, ends: Uint16Array, bytes: Buffer): boolean {
    try {
      chunk.stored = (this._store as ChunkStore).put(
        new Uint8Array(ends.buffer, ends.byteOffset, chunk.count * INDEX_BYTES_PER_LINE),
        bytes.subarray(0, chunk.used),
      );
    } catch (err) {
      this._storeError = (err as Error).message;
      return false;
    }
    chunk.bytes = undefined;
    chunk.ends = undefined;
    return true;
  }
}

/** Memory a sealed chunk held there takes. */
function chunkBytes(chunk: Chunk): number {
  return (chunk.bytes?.byteLength ?? 0) + (chunk.ends?.byteLength ?? 0);
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
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
