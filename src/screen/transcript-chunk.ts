/**
 * The transcript's unit of storage: a chunk of lines as UTF-8 text with a 16-bit end offset per
 * line (no string per line), and the arithmetic on chunks. The line store is transcript.ts; where
 * full chunks go, chunk-store.ts. Pure.
 * @see ../../spec/guarantees.md (Transcript, Bounds)
 */

/** What one line costs against the bound besides its text: its entry in the offset index. */
export const INDEX_BYTES_PER_LINE = 2;
/** Text bytes one chunk holds at most (offsets are 16-bit); a longer line is cut to fit. */
export const CHUNK_BYTES = 0xffff;
/** Lines one chunk holds at most. */
export const CHUNK_LINES = 16_384;
/** The most a chunk's index and text take together: room for any chunk read back. */
export const CHUNK_SLOT_BYTES = CHUNK_LINES * INDEX_BYTES_PER_LINE + CHUNK_BYTES + 1;
/** Room left in a full chunk beyond which it is copied to its exact size (1/32 of a chunk). */
const MAX_SLACK = 2048;

/** Where a store keeps a chunk: its index (2 bytes per line) followed by its text. */
export interface StoredChunk {
  readonly segment: number;
  readonly offset: number;
  readonly length: number;
}

export interface Chunk {
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
export interface ChunkView {
  readonly bytes: Buffer;
  readonly ends: Uint16Array;
}

/** An empty chunk whose first line will be line `first`, filling `bytes` and `ends`. */
export function openChunk(first: number, bytes: Buffer, ends: Uint16Array): Chunk {
  return { first, bytes, ends, count: 0, used: 0, stored: undefined };
}

/**
 * Gives a full chunk kept in memory offsets of its own (its `ends` are the open chunk's, reused)
 * and, when much of its text buffer is unused, text copied to its exact size; returns the text
 * buffer it no longer holds, for the next chunk, or undefined.
 */
export function shrinkChunk(chunk: Chunk): Buffer | undefined {
  const bytes = chunk.bytes as Buffer;
  chunk.ends = (chunk.ends as Uint16Array).slice(0, chunk.count);
  if (CHUNK_BYTES - chunk.used <= MAX_SLACK) return undefined;
  chunk.bytes = Buffer.allocUnsafeSlow(chunk.used);
  bytes.copy(chunk.bytes, 0, 0, chunk.used);
  return bytes;
}

/** Memory a chunk held there takes. */
export function chunkBytes(chunk: Chunk): number {
  return (chunk.bytes?.byteLength ?? 0) + (chunk.ends?.byteLength ?? 0);
}

/** The chunk of `chunks` (in line order, none empty) holding line `n`, and the line's index there. */
export function locateLine(chunks: readonly Chunk[], n: number): [Chunk, number] {
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

/** How much of `bytes[start, end)` fits in a chunk, cut at a character boundary. */
export function fitLength(bytes: Uint8Array, start: number, end: number): number {
  let length = end - start;
  if (length <= CHUNK_BYTES) return length;
  length = CHUNK_BYTES;
  // Step back over continuation bytes so the cut falls before a character's first byte.
  while (length > 0 && ((bytes[start + length] as number) & 0xc0) === 0x80) length--;
  return length;
}
