import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChunkList } from '../../../src/screen/chunk-list.js';
import { ChunkShelf, type ChunkStore } from '../../../src/screen/chunk-store.js';
import {
  CHUNK_BYTES,
  CHUNK_LINES,
  type Chunk,
  type StoredChunk,
} from '../../../src/screen/transcript-chunk.js';

/** A store in memory that can be made full. */
class MemoryStore implements ChunkStore {
  readonly held = new Map<number, Buffer>();
  isFull = false;
  private _next = 0;
  put(index: Uint8Array, text: Uint8Array): StoredChunk {
    if (this.isFull) throw new Error('ENOSPC');
    const offset = this._next++;
    this.held.set(offset, Buffer.concat([index, text]));
    return { segment: 0, offset, length: index.length + text.length };
  }
  get(at: StoredChunk, into: Uint8Array, length: number): void {
    into.set((this.held.get(at.offset) as Buffer).subarray(0, length));
  }
  release(at: StoredChunk): void {
    this.held.delete(at.offset);
  }
  remove(): void {
    this.held.clear();
  }
}

/** A list and the lines written to it, numbered from 1 as a transcript numbers them. */
function listOf(store?: ChunkStore) {
  let drops = 0;
  const shelf = new ChunkShelf(store);
  const list: ChunkList = new ChunkList(shelf, () => {
    drops++;
    list.forgetOldest();
  });
  let total = 0;
  const add = (line: string): Chunk => {
    const length = Buffer.byteLength(line);
    const chunk = list.roomFor(length, total + 1);
    (chunk.bytes as Buffer).write(line, chunk.used);
    chunk.used += length;
    (chunk.ends as Uint16Array)[chunk.count++] = chunk.used;
    total++;
    return chunk;
  };
  const lines = () =>
    list.chunks.flatMap((chunk) => {
      const view = list.view(chunk);
      return [...view.ends.subarray(0, chunk.count)].map((end, i) =>
        view.bytes.toString('utf8', view.ends[i - 1] ?? 0, end),
      );
    });
  return { list, add, lines, drops: () => drops };
}

describe('ChunkList', () => {
  it('fills one open chunk, then seals it by line count and opens the next', () => {
    const { list, add } = listOf();
    const first = add('a');
    assert.equal(first.first, 1);
    for (let i = 1; i < CHUNK_LINES; i++) assert.equal(add('a'), first);
    const second = add('b');
    assert.notEqual(second, first);
    assert.equal(second.first, CHUNK_LINES + 1);
    assert.equal((first.ends as Uint16Array).length, CHUNK_LINES, 'offsets of its own');
    assert.notEqual(first.ends, second.ends);
    assert.deepEqual(list.chunks, [first, second]);
  });

  it('seals by bytes, copying a chunk with room left to its size and reusing its buffer', () => {
    const { list, add, lines } = listOf();
    const accents = 'é'.repeat(10_000);
    const first = add(accents);
    const buffer = first.bytes;
    add(accents);
    add(accents);
    const second = add('x'.repeat(21_500));
    assert.equal(first.count, 3);
    assert.equal((first.bytes as Buffer).length, 60_000, 'more than 2 KiB left: exact size');
    assert.equal(second.bytes, buffer, 'the open chunk reuses the buffer');
    assert.equal(add('x'.repeat(21_500)), second);
    add('x'.repeat(21_500));
    const third = add('y'.repeat(2000));
    assert.notEqual(third, second);
    assert.equal(second.bytes, buffer, 'less than 2 KiB left: kept as it is');
    assert.deepEqual(
      lines().map((l) => l.length),
      [10_000, 10_000, 10_000, 21_500, 21_500, 21_500, 2000],
    );
    assert.equal(
      list.allocatedBytes,
      60_000 + 3 * 2 + CHUNK_BYTES + 3 * 2 + CHUNK_BYTES + CHUNK_LINES * 2,
    );
  });

  it('stores full chunks and reads them back; the open one reuses the stored one’s buffer', () => {
    const store = new MemoryStore();
    const { list, add, lines } = listOf(store);
    const first = add('x'.repeat(40_000));
    const buffer = first.bytes;
    const second = add('y'.repeat(40_000));
    assert.equal(first.bytes, undefined);
    assert.ok(first.stored);
    assert.equal(second.bytes, buffer);
    assert.deepEqual(
      lines().map((l) => l.length),
      [40_000, 40_000],
    );
    list.forgetOldest();
    assert.equal(store.held.size, 0, 'released');
    assert.deepEqual(list.chunks, [second]);
  });

  it('drops the oldest chunks while full chunks wait for a full disk past the bound', () => {
    const store = new MemoryStore();
    const { list, add, drops } = listOf(store);
    add('s'.repeat(40_000));
    add('s'.repeat(40_000)); // the first is stored
    store.isFull = true;
    for (let i = 0; i < 80; i++) add('w'.repeat(60_000));
    assert.ok(drops() > 0);
    assert.equal(list.chunks[0]?.first, drops() + 1);
    assert.ok(list.allocatedBytes <= 4 * 1024 * 1024 + 2 * CHUNK_BYTES + 2 * CHUNK_LINES);
    store.isFull = false;
    add('z'.repeat(60_000));
    assert.ok(
      list.chunks.slice(0, -1).every((c) => c.stored !== undefined),
      'stored at last',
    );
  });

  it('forgets the open chunk too, and every chunk on clear', () => {
    const store = new MemoryStore();
    const { list, add } = listOf(store);
    add('a');
    list.forgetOldest();
    assert.deepEqual(list.chunks, []);
    const next = add('b');
    assert.equal(next.first, 2);
    add('c'.repeat(CHUNK_BYTES));
    list.clear();
    assert.deepEqual(list.chunks, []);
    assert.equal(store.held.size, 0);
    assert.equal(list.allocatedBytes, 0);
  });
});
