/**
 * The chunks that hold a transcript's kept lines, oldest first: the open one being filled (its
 * text buffer and offsets reused from chunk to chunk, so a full transcript allocates nothing) and
 * full ones, sealed into the store or kept in memory (chunk-store.ts). Which lines are kept is
 * transcript.ts's; the chunk format, transcript-chunk.ts's.
 * @see ../../spec/guarantees.md (Transcript, Bounds)
 */
import type { ChunkShelf } from './chunk-store.js';
import {
  CHUNK_BYTES,
  CHUNK_LINES,
  type Chunk,
  type ChunkView,
  openChunk,
  shrinkChunk,
} from './transcript-chunk.js';

export class ChunkList {
  /** Oldest first; the last is the open one while its offsets are the shared open ones. */
  readonly chunks: Chunk[] = [];
  /** The offsets of the open (last) chunk, reused for each: a sealed chunk gets an exact copy. */
  private _openEnds: Uint16Array | undefined;
  /** A chunk's text buffer kept for the next one. */
  private _spare: Buffer | undefined;
  private readonly _shelf: ChunkShelf;
  private readonly _dropChunk: () => void;

  /**
   * `shelf`: where full chunks go; `dropChunk`: drops the oldest chunk's kept lines (through
   * forgetOldest), called while full chunks that wait for the store take too much memory.
   */
  constructor(shelf: ChunkShelf, dropChunk: () => void) {
    this._shelf = shelf;
    this._dropChunk = dropChunk;
  }

  /**
   * Bytes allocated in memory: chunks held there (the open one, unstored ones; every one without
   * a store), the open chunk's offsets, the spare text buffer and the read caches.
   */
  get allocatedBytes(): number {
    let sum = (this._openEnds?.byteLength ?? 0) + (this._spare?.byteLength ?? 0);
    for (const chunk of this.chunks) {
      sum += chunk.bytes?.byteLength ?? 0;
      if (chunk.ends !== this._openEnds) sum += chunk.ends?.byteLength ?? 0;
    }
    return sum + this._shelf.allocatedBytes;
  }

  /**
   * The open chunk, with room for a line of `length` bytes: the last one, or a new one whose
   * first line is `first` (the full one sealed first).
   */
  roomFor(length: number, first: number): Chunk {
    const chunk = this.chunks[this.chunks.length - 1];
    if (
      chunk?.bytes !== undefined &&
      chunk.ends === this._openEnds &&
      chunk.count < CHUNK_LINES &&
      chunk.used + length <= CHUNK_BYTES
    ) {
      return chunk;
    }
    if (chunk) this._seal(chunk);
    return this._open(first);
  }

  /** A chunk's text and index, wherever it is kept. */
  view(chunk: Chunk): ChunkView {
    return this._shelf.view(chunk);
  }

  /** The oldest chunk has no kept line left: it goes, its room given back. */
  forgetOldest(): void {
    const chunk = this.chunks.shift() as Chunk;
    this._shelf.forget(chunk, chunk.ends === this._openEnds);
    if (chunk.bytes?.length === CHUNK_BYTES) this._spare = chunk.bytes;
    // The open chunk itself: the next line opens a new one.
    if (chunk.ends === this._openEnds) this._openEnds = undefined;
  }

  /** Forgets every chunk, and removes everything stored. */
  clear(): void {
    this.chunks.length = 0;
    this._openEnds = undefined;
    this._spare = undefined;
    this._shelf.remove();
  }

  /** A new open chunk, on the spare text buffer when there is one. */
  private _open(first: number): Chunk {
    const bytes = this._spare ?? Buffer.allocUnsafeSlow(CHUNK_BYTES);
    this._spare = undefined;
    this._openEnds ??= new Uint16Array(CHUNK_LINES);
    const chunk = openChunk(first, bytes, this._openEnds);
    this.chunks.push(chunk);
    return chunk;
  }

  /** A full chunk goes to the store, or stays in memory with offsets of its own. */
  private _seal(chunk: Chunk): void {
    const bytes = chunk.bytes as Buffer;
    const shelf = this._shelf;
    if (shelf.hasStore && shelf.store(chunk, this.chunks, this._openEnds)) {
      this._spare = bytes;
      return;
    }
    const freed = shrinkChunk(chunk);
    if (freed) this._spare = freed;
    if (!shelf.hasStore) return;
    shelf.keep(chunk);
    // The disk stays full: the oldest lines go, stored ones first, until the rest fit in memory.
    while (shelf.isOverflowing && this.chunks.length > 1) {
      this._dropChunk();
      shelf.storeWaiting(this.chunks, this._openEnds);
    }
  }
}
