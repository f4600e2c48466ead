import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ChunkShelf,
  type ChunkStore,
  MAX_UNSTORED_BYTES,
} from '../../../src/screen/chunk-store.js';
import {
  CHUNK_BYTES,
  CHUNK_SLOT_BYTES,
  type Chunk,
  type StoredChunk,
  shrinkChunk,
} from '../../../src/screen/transcript-chunk.js';

/** A store in memory that can be made full: what it holds, and the calls it took. */
class MemoryStore implements ChunkStore {
  readonly held = new Map<number, Buffer>();
  readonly calls: string[] = [];
  isFull = false;
  private _next = 0;

  put(index: Uint8Array, text: Uint8Array): StoredChunk {
    if (this.isFull) throw new Error('ENOSPC: no space left on device');
    const offset = this._next++;
    this.held.set(offset, Buffer.concat([index, text]));
    this.calls.push(`put ${offset}`);
    return { segment: 0, offset, length: index.length + text.length };
  }

  get(at: StoredChunk, into: Uint8Array, length: number): void {
    this.calls.push(`get ${at.offset} ${length}`);
    into.set((this.held.get(at.offset) as Buffer).subarray(0, length));
  }

  release(at: StoredChunk): void {
    this.calls.push(`release ${at.offset}`);
    this.held.delete(at.offset);
  }

  remove(): void {
    this.calls.push('remove');
    this.held.clear();
  }
}

/** A full chunk of `lines` from line `first`, sealed in memory (offsets of its own). */
function sealed(first: number, lines: readonly string[], size = 0xffff): Chunk {
  const bytes = Buffer.alloc(size);
  const ends = new Uint16Array(Math.max(lines.length, 1));
  let used = 0;
  lines.forEach((line, i) => {
    used += bytes.write(line, used);
    ends[i] = used;
  });
  const chunk: Chunk = { first, count: lines.length, used, bytes, ends, stored: undefined };
  shrinkChunk(chunk);
  return chunk;
}

const text = (shelf: ChunkShelf, chunk: Chunk) => {
  const view = shelf.view(chunk);
  return [...view.ends].map((end, i) => view.bytes.toString('utf8', view.ends[i - 1] ?? 0, end));
};

describe('ChunkShelf', () => {
  it('keeps chunks in memory without a store', () => {
    const shelf = new ChunkShelf(undefined, 'no room for files');
    const chunk = sealed(1, ['a', 'bé']);
    assert.equal(shelf.hasStore, false);
    assert.equal(shelf.error, 'no room for files');
    assert.deepEqual(text(shelf, chunk), ['a', 'bé']);
    assert.equal(shelf.allocatedBytes, 0);
  });

  it('stores a full chunk, reads it back, and keeps two read back in memory', () => {
    const store = new MemoryStore();
    const shelf = new ChunkShelf(store);
    const chunks = [sealed(1, ['one', 'two']), sealed(3, ['three']), sealed(4, ['föur', ''])];
    for (const chunk of chunks) assert.equal(shelf.store(chunk, chunks, undefined), true);
    assert.ok(chunks.every((c) => c.bytes === undefined && c.ends === undefined && c.stored));
    assert.deepEqual(store.calls, ['put 0', 'put 1', 'put 2']);
    store.calls.length = 0;
    assert.deepEqual(text(shelf, chunks[0] as Chunk), ['one', 'two']);
    assert.deepEqual(text(shelf, chunks[2] as Chunk), ['föur', '']);
    assert.deepEqual(text(shelf, chunks[0] as Chunk), ['one', 'two'], 'from the cache');
    assert.deepEqual(text(shelf, chunks[1] as Chunk), ['three'], 'takes the older slot');
    assert.deepEqual(text(shelf, chunks[2] as Chunk), ['föur', ''], 'read again');
    assert.deepEqual(store.calls, ['get 0 10', 'get 2 9', 'get 1 7', 'get 2 9']);
    assert.equal(shelf.allocatedBytes, 2 * CHUNK_SLOT_BYTES);
  });

  it('reads a stored chunk index once while lines go from it, and gives its room back', () => {
    const store = new MemoryStore();
    const shelf = new ChunkShelf(store);
    const chunk = sealed(1, ['ab', 'cde', 'f']);
    shelf.store(chunk, [chunk], undefined);
    assert.deepEqual([...shelf.storedIndex(chunk)], [2, 5, 6]);
    assert.deepEqual([...shelf.storedIndex(chunk)], [2, 5, 6]);
    assert.equal(shelf.allocatedBytes, 6);
    shelf.forget(chunk, false);
    assert.equal(shelf.allocatedBytes, 0);
    assert.deepEqual(store.calls, ['put 0', 'get 0 6', 'release 0']);
  });

  it('keeps the error of a full disk; the chunks wait in memory and are stored oldest first later', () => {
    const store = new MemoryStore();
    const shelf = new ChunkShelf(store);
    const open = new Uint16Array(8);
    const waiting = [sealed(1, ['a']), sealed(2, ['b'])];
    const openChunk: Chunk = { ...sealed(3, ['c']), ends: open };
    const chunks = [...waiting, openChunk];
    store.isFull = true;
    for (const chunk of waiting) {
      assert.equal(shelf.store(chunk, chunks, open), false);
      shelf.keep(chunk);
    }
    assert.equal(shelf.error, 'ENOSPC: no space left on device');
    assert.ok(waiting.every((c) => c.bytes !== undefined && c.stored === undefined));
    store.isFull = false;
    shelf.storeWaiting(chunks, open);
    assert.deepEqual(store.calls, ['put 0', 'put 1'], 'not the open chunk');
    assert.ok(waiting.every((c) => c.bytes === undefined && c.stored !== undefined));
    assert.equal(openChunk.stored, undefined);
    const next = sealed(4, ['d']);
    assert.equal(shelf.store(next, [...chunks, next], open), true, 'nothing waits now');
  });

  it('overflows past MAX_UNSTORED_BYTES of waiting chunks, until they are forgotten', () => {
    const store = new MemoryStore();
    store.isFull = true;
    const shelf = new ChunkShelf(store);
    const big = () => sealed(1, ['x'.repeat(0xfff0)]);
    const kept: Chunk[] = [];
    while (!shelf.isOverflowing) {
      const chunk = big();
      assert.equal(shelf.store(chunk, kept, undefined), false);
      shelf.keep(chunk);
      kept.push(chunk);
    }
    // Little room left in each: kept at full size, with a 2-byte index.
    assert.equal(kept.length, Math.floor(MAX_UNSTORED_BYTES / (CHUNK_BYTES + 2)) + 1);
    shelf.forget(kept.shift() as Chunk, false);
    assert.equal(shelf.isOverflowing, false);
    assert.deepEqual(store.calls, [], 'nothing stored, nothing released');
  });

  it('removes everything on remove, and stores nothing after', () => {
    const store = new MemoryStore();
    const shelf = new ChunkShelf(store);
    const chunk = sealed(1, ['a']);
    shelf.store(chunk, [chunk], undefined);
    shelf.view(chunk);
    shelf.remove();
    assert.equal(shelf.hasStore, false);
    assert.equal(shelf.allocatedBytes, 0);
    assert.deepEqual(store.calls.at(-1), 'remove');
    assert.equal(store.held.size, 0);
  });
});
