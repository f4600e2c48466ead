/**
 * Placeholders for the free descriptor numbers below the highest open one, over a model of a
 * descriptor table (lowest free number first, a limit), and once over the real process on Linux.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  type DescriptorDeps,
  fillDescriptorGaps,
  spawnAboveOpenDescriptors,
} from '../../../src/pty/descriptor-gaps.js';

/** A descriptor table: `open` numbers taken, the next open gets the lowest free one below `limit`. */
function table(open: number[], limit = 1024): DescriptorDeps & { taken: Set<number> } {
  const taken = new Set(open);
  return {
    taken,
    list: () => [...taken],
    open() {
      for (let fd = 0; fd < limit; fd++) {
        if (!taken.has(fd)) {
          taken.add(fd);
          return fd;
        }
      }
      throw Object.assign(new Error('EMFILE'), { code: 'EMFILE' });
    },
    close(fd) {
      assert.ok(taken.delete(fd), `close of ${fd}, which is not open`);
    },
  };
}

describe('descriptor gaps', () => {
  it('fills every free number below the highest open descriptor, and nothing else', () => {
    const fds = table([0, 1, 2, 3, 4, 7, 9, 40]);
    const placeholders = fillDescriptorGaps(fds);
    assert.equal(placeholders.length, 41 - 8);
    assert.deepEqual(
      [...fds.taken].sort((a, b) => a - b),
      Array.from({ length: 41 }, (_, i) => i),
    );
  });

  it('fills nothing when the table has no gap', () => {
    const fds = table([0, 1, 2, 3, 4, 5]);
    assert.deepEqual(fillDescriptorGaps(fds), []);
    assert.equal(fds.taken.size, 6);
  });

  it('gives the spawn the number above every open descriptor, then frees the placeholders', () => {
    const fds = table([0, 1, 2, 3, 5, 8, 23]);
    const spawned = spawnAboveOpenDescriptors(() => fds.open(), 'linux', fds);
    assert.equal(spawned, 24);
    assert.deepEqual(
      [...fds.taken].sort((a, b) => a - b),
      [0, 1, 2, 3, 5, 8, 23, 24],
    );
  });

  it('frees the placeholders when the spawn throws', () => {
    const fds = table([0, 1, 2, 9]);
    assert.throws(
      () =>
        spawnAboveOpenDescriptors(
          () => {
            throw new Error('no such file');
          },
          'linux',
          fds,
        ),
      /no such file/,
    );
    assert.deepEqual([...fds.taken].sort(), [0, 1, 2, 9]);
  });

  it('takes no placeholder when the descriptor limit comes first', () => {
    const fds = table([0, 1, 2, 3, 60], 50);
    assert.deepEqual(fillDescriptorGaps(fds), []);
    assert.deepEqual(
      [...fds.taken].sort((a, b) => a - b),
      [0, 1, 2, 3, 60],
    );
  });

  it('fills nothing when the descriptors cannot be listed', () => {
    const fds = { ...table([0, 1, 2, 7]), list: () => undefined };
    assert.deepEqual(fillDescriptorGaps(fds), []);
  });

  it('leaves other platforms to their own spawn', () => {
    const fds = table([0, 1, 2, 9]);
    assert.equal(
      spawnAboveOpenDescriptors(() => fds.open(), 'darwin', fds),
      3,
    );
  });

  it('fills the real descriptor table of this process', {
    skip: process.platform !== 'linux',
  }, () => {
    const listed = () => readdirSync('/proc/self/fd').map(Number);
    const before = listed();
    const spawned = spawnAboveOpenDescriptors(() => listed());
    // The listing inside holds one directory descriptor, numbered above all the others.
    const inside = spawned.sort((a, b) => a - b);
    assert.deepEqual(
      inside.slice(0, -1),
      Array.from({ length: inside.length - 1 }, (_, i) => i),
    );
    assert.ok((inside.at(-1) as number) >= Math.max(...before));
    assert.deepEqual(listed().sort(), before.sort());
  });
});
