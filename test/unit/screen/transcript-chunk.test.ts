import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CHUNK_BYTES,
  CHUNK_LINES,
  CHUNK_SLOT_BYTES,
  type Chunk,
  chunkBytes,
  fitLength,
  INDEX_BYTES_PER_LINE,
  locateLine,
  openChunk,
  shrinkChunk,
} from '../../../src/screen/transcript-chunk.js';

/** An open chunk holding `lines` from line `first`, on fresh full-size buffers. */
function chunkOf(first: number, lines: readonly string[]): Chunk {
  const chunk = openChunk(first, Buffer.alloc(CHUNK_BYTES), new Uint16Array(CHUNK_LINES));
  for (const line of lines) {
    chunk.used += (chunk.bytes as Buffer).write(line, chunk.used);
    (chunk.ends as Uint16Array)[chunk.count++] = chunk.used;
  }
  return chunk;
}

describe('transcript chunk format', () => {
  it('sizes a slot for the largest chunk: a full index and a full text', () => {
    assert.ok(CHUNK_SLOT_BYTES >= CHUNK_LINES * INDEX_BYTES_PER_LINE + CHUNK_BYTES);
    assert.equal(CHUNK_BYTES, 0xffff, 'offsets are 16-bit');
  });

  it('opens an empty chunk on the buffers it is given', () => {
    const bytes = Buffer.alloc(8);
    const ends = new Uint16Array(4);
    const chunk = openChunk(42, bytes, ends);
    assert.deepEqual(
      { ...chunk },
      { first: 42, bytes, ends, count: 0, used: 0, stored: undefined },
    );
  });

  it('fits a line whole when it is short, and cuts a long one before a character', () => {
    const short = Buffer.from('héllo');
    assert.equal(fitLength(short, 0, short.length), 6);
    assert.equal(fitLength(short, 1, 4), 3, 'a range of a larger buffer');
    const ascii = Buffer.alloc(CHUNK_BYTES + 10, 'a');
    assert.equal(fitLength(ascii, 0, ascii.length), CHUNK_BYTES);
    // 'é' is 2 bytes: the cut at CHUNK_BYTES (odd) would split one, so it steps back a byte.
    const accents = Buffer.from('é'.repeat(CHUNK_BYTES));
    assert.equal(fitLength(accents, 0, accents.length), CHUNK_BYTES - 1);
    const emoji = Buffer.from(`x${'🙂'.repeat(CHUNK_BYTES / 4 + 2)}`);
    const fitted = fitLength(emoji, 1, emoji.length);
    assert.equal(fitted % 4, 0, 'whole 4-byte characters');
    assert.ok(fitted > CHUNK_BYTES - 4 && fitted <= CHUNK_BYTES);
  });

  it('finds the chunk of a line and its index there', () => {
    const chunks = [
      chunkOf(1, ['a', 'b', 'c']),
      chunkOf(4, ['d'.repeat(5)]),
      chunkOf(5, ['e', 'f']),
    ];
    const at = (n: number) => {
      const [chunk, i] = locateLine(chunks, n);
      return [chunks.indexOf(chunk), i];
    };
    assert.deepEqual([1, 3, 4, 5, 6].map(at), [
      [0, 0],
      [0, 2],
      [1, 0],
      [2, 0],
      [2, 1],
    ]);
    assert.deepEqual(locateLine([chunks[2] as Chunk], 6)[1], 1, 'one chunk');
  });

  it('seals a chunk with little room left on its own buffer, with offsets of its own', () => {
    const line = 'x'.repeat(1000);
    const chunk = chunkOf(
      1,
      Array.from({ length: 64 }, () => line),
    );
    const shared = chunk.ends as Uint16Array;
    const bytes = chunk.bytes as Buffer;
    assert.equal(shrinkChunk(chunk), undefined);
    assert.equal(chunk.bytes, bytes);
    assert.notEqual(chunk.ends, shared);
    assert.deepEqual([...(chunk.ends as Uint16Array)], [...shared.subarray(0, 64)]);
    assert.equal(chunkBytes(chunk), CHUNK_BYTES + 64 * 2);
  });

  it('copies a chunk with much room left to its exact size and gives its buffer back', () => {
    const chunk = chunkOf(7, ['one', 'twö', '']);
    const bytes = chunk.bytes as Buffer;
    assert.equal(shrinkChunk(chunk), bytes);
    assert.equal((chunk.bytes as Buffer).length, 7);
    assert.equal((chunk.bytes as Buffer).toString(), 'onetwö');
    assert.deepEqual([...(chunk.ends as Uint16Array)], [3, 7, 7]);
    assert.equal(chunkBytes(chunk), 7 + 3 * 2);
  });

  it('counts no memory for a chunk held by a store', () => {
    const chunk = chunkOf(1, ['a']);
    chunk.bytes = undefined;
    chunk.ends = undefined;
    chunk.stored = { segment: 0, offset: 0, length: 3 };
    assert.equal(chunkBytes(chunk), 0);
  });
});
