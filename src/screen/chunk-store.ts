/**
 * Where a transcript's full chunks go: a ChunkStore (session/transcript-files.ts: a session's
 * private files), what happens when it cannot take one (the disk is full), and reading stored
 * chunks back, a chunk at a time; a chunk that cannot be read back as stored is a DamagedChunkError,
 * which transcript.ts turns into dropped lines. Which lines are kept is transcript.ts's; the chunk
 * format is transcript-chunk.ts's.
 * @see ../../spec/guarantees.md (Transcript, Bounds)
 */
import {
  CHUNK_SLOT_BYTES,
  type Chunk,
  type ChunkView,
  chunkBytes,
  INDEX_BYTES_PER_LINE,
  type StoredChunk,
} from './transcript-chunk.js';

/**
 * Full chunks that could not be stored (the disk is full) wait in memory up to this many bytes
 * for a later write; past it the oldest lines are dropped, whole chunks at a time, stored ones
 * first, which frees room on the disk for the newer ones.
 */
export const MAX_UNSTORED_BYTES = 4 * 1024 * 1024;
/** Stored chunks whose text is kept in memory for reading, most recently read first. */
const READ_CACHE_CHUNKS = 2;

/**
 * A stored chunk could not be read back as it was stored (its file cut short, changed, unreadable):
 * its lines are lost. The shelf's error says so.
 */
export class DamagedChunkError extends Error {
  constructor(
    readonly chunk: Chunk,
    message: string,
  ) {
    super(message);
    this.name = 'DamagedChunkError';
  }
}

/** Keeps full chunks out of memory (session/transcript-files.ts: a session's private files). */
export interface ChunkStore {
  /** Stores a chunk's index then its text; throws when it cannot (the disk is full). */
  put(index: Uint8Array, text: Uint8Array): StoredChunk;
  /**
   * Reads the first `length` bytes of a stored chunk into `into`; throws when it cannot give back
   * what was stored (the file was cut short or changed, the read failed).
   */
  get(at: StoredChunk, into: Uint8Array, length: number): void;
  /** A stored chunk's lines are all dropped: its room may be given back. */
  release(at: StoredChunk): void;
  /** Removes everything stored; nothing is stored after. */
  remove(): void;
}

/**
 * A transcript's full chunks as a store holds them, or as they wait in memory while it cannot:
 * stores them oldest first, reads them back, gives their room back once their lines are dropped.
 */
export class ChunkShelf {
  private _store: ChunkStore | undefined;
  private _error: string | undefined;
  /** Memory taken by full chunks that wait for the store (the disk was full). */
  private _unstoredBytes = 0;
  /** The oldest chunk's index when it is stored: lines are dropped from it one at a time. */
  private _oldestEnds: { chunk: Chunk; ends: Uint16Array } | undefined;
  private _readCache: { chunk: Chunk; view: ChunkView; slot: Buffer }[] = [];

  /** `store`: where full chunks go (none: they stay in memory); `error`: why there is none. */
  constructor(store?: ChunkStore, error?: string) {
    this._store = store;
    this._error = error;
  }

  /** Whether full chunks go to a store (until remove()). */
  get hasStore(): boolean {
    return this._store !== undefined;
  }

  /**
   * The latest failure to store a chunk (the disk is full) or to read one back (the files are
   * damaged), or why there is no store.
   */
  get error(): string | undefined {
    return this._error;
  }

  /** Whether more full chunks wait for the store than MAX_UNSTORED_BYTES allows. */
  get isOverflowing(): boolean {
    return this._unstoredBytes > MAX_UNSTORED_BYTES;
  }

  /** Bytes of memory the read caches take. */
  get allocatedBytes(): number {
    let sum = this._oldestEnds?.ends.byteLength ?? 0;
    for (const entry of this._readCache) sum += entry.slot.byteLength;
    return sum;
  }

  /**
   * Stores the full chunk `chunk` once the chunks of `chunks` that wait are stored (not the open
   * one, whose offsets are `openEnds`); false when it stays in memory, to be kept by keep().
   */
  store(chunk: Chunk, chunks: readonly Chunk[], openEnds: Uint16Array | undefined): boolean {
    this.storeWaiting(chunks, openEnds);
    return this._unstoredBytes === 0 && this._put(chunk);
  }

  /** A full chunk the store did not take waits in memory (sealed: offsets of its own). */
  keep(chunk: Chunk): void {
    this._unstoredBytes += chunkBytes(chunk);
  }

  /** Stores chunks that could not be stored before, oldest first, while the store takes them. */
  storeWaiting(chunks: readonly Chunk[], openEnds: Uint16Array | undefined): void {
    if (this._unstoredBytes === 0) return;
    for (const chunk of chunks) {
      if (chunk.stored || chunk.ends === openEnds) continue;
      const size = chunkBytes(chunk);
      if (!this._put(chunk)) return;
      this._unstoredBytes -= size;
    }
  }

  /**
   * A chunk's text and index: in memory, or read back from the store into a cache slot;
   * DamagedChunkError when it cannot be read back as stored.
   */
  view(chunk: Chunk): ChunkView {
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
    const reused = cache.length >= READ_CACHE_CHUNKS ? cache.pop() : undefined;
    const slot = reused?.slot ?? Buffer.allocUnsafeSlow(CHUNK_SLOT_BYTES);
    const indexBytes = chunk.count * INDEX_BYTES_PER_LINE;
    const view = {
      ends: new Uint16Array(slot.buffer, slot.byteOffset, chunk.count),
      bytes: slot.subarray(indexBytes, indexBytes + chunk.used),
    };
    this._readBack(chunk, slot, indexBytes + chunk.used, view.ends);
    cache.unshift({ chunk, view, slot });
    return view;
  }

  /**
   * The end offsets of stored chunk `chunk`, the oldest, read back once while lines go from it;
   * DamagedChunkError when they cannot be read back as stored.
   */
  storedIndex(chunk: Chunk): Uint16Array {
    if (this._oldestEnds?.chunk === chunk) return this._oldestEnds.ends;
    const ends = new Uint16Array(chunk.count);
    this._readBack(chunk, new Uint8Array(ends.buffer), ends.byteLength, ends);
    this._oldestEnds = { chunk, ends };
    return ends;
  }

  /** `chunk` has no kept line left (`isOpen`: it is the open chunk): its room is given back. */
  forget(chunk: Chunk, isOpen: boolean): void {
    if (this._oldestEnds?.chunk === chunk) this._oldestEnds = undefined;
    this._readCache = this._readCache.filter((entry) => entry.chunk !== chunk);
    if (chunk.stored) this._store?.release(chunk.stored);
    else if (this._store && !isOpen) this._unstoredBytes -= chunkBytes(chunk);
  }

  /** Forgets every chunk and removes everything stored; nothing is stored after. */
  remove(): void {
    this._oldestEnds = undefined;
    this._readCache = [];
    this._unstoredBytes = 0;
    this._store?.remove();
    this._store = undefined;
  }

  /**
   * Reads the first `length` bytes of stored chunk `chunk` into `into`, whose offsets are then
   * `ends`: any failure of the store, or offsets that cannot be the chunk's (a store that does not
   * check what it gives back), is a DamagedChunkError, the reason kept.
   */
  private _readBack(chunk: Chunk, into: Uint8Array, length: number, ends: Uint16Array): void {
    let reason: string | undefined;
    try {
      (this._store as ChunkStore).get(chunk.stored as StoredChunk, into, length);
      if (!isIndexOf(chunk, ends)) reason = 'its line index does not fit its text';
    } catch (err) {
      reason = err instanceof Error ? err.message : String(err);
    }
    if (reason === undefined) return;
    const last = chunk.first + chunk.count - 1;
    this._error = `history lines ${chunk.first}-${last} could not be read back from the transcript's files (${reason}): they and the lines before them are dropped`;
    throw new DamagedChunkError(chunk, this._error);
  }

  /** Stores `chunk`; false (the reason kept) when the store cannot take it. */
  private _put(chunk: Chunk): boolean {
    const ends = chunk.ends as Uint16Array;
    try {
      chunk.stored = (this._store as ChunkStore).put(
        new Uint8Array(ends.buffer, ends.byteOffset, chunk.count * INDEX_BYTES_PER_LINE),
        (chunk.bytes as Buffer).subarray(0, chunk.used),
      );
    } catch (err) {
      this._error = (err as Error).message;
      return false;
    }
    chunk.bytes = undefined;
    chunk.ends = undefined;
    return true;
  }
}

/** Whether `ends` can be `chunk`'s line offsets: never decreasing, the last at its text's end. */
function isIndexOf(chunk: Chunk, ends: Uint16Array): boolean {
  let previous = 0;
  for (let i = 0; i < chunk.count; i++) {
    const end = ends[i] as number;
    if (end < previous) return false;
    previous = end;
  }
  return previous === chunk.used;
}
