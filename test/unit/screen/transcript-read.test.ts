import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Chunk, ChunkView } from '../../../src/screen/transcript-chunk.js';
import { type KeptLines, readLineBytes, readLines } from '../../../src/screen/transcript-read.js';

const ALL = Number.POSITIVE_INFINITY;

/** A sealed in-memory chunk holding `lines` from line `first`. */
function chunkOf(first: number, lines: readonly string[]): Chunk {
  const bytes = Buffer.from(lines.join(''));
  const ends = new Uint16Array(lines.length);
  let at = 0;
  lines.forEach((line, i) => {
    at += Buffer.byteLength(line);
    ends[i] = at;
  });
  return { first, count: lines.length, used: bytes.length, bytes, ends, stored: undefined };
}

/** Lines 1..9 in three chunks, the first `dropped` of them gone; counts the views taken. */
function keptOf(dropped = 0): KeptLines & { views: number } {
  const chunks = [
    chunkOf(1, ['one', 'two', 'three']),
    chunkOf(4, ['four', '', 'sïx']),
    chunkOf(7, ['seven', 'eight', 'nine']),
  ].filter((c) => c.first + c.count - 1 > dropped);
  const kept = {
    chunks,
    dropped,
    total: 9,
    views: 0,
    view(chunk: Chunk): ChunkView {
      kept.views++;
      return { bytes: chunk.bytes as Buffer, ends: chunk.ends as Uint16Array };
    },
  };
  return kept;
}

/** An encoded slice's lines as strings. */
function decode(slice: { utf8: Uint8Array; ends: Uint32Array }): string[] {
  const text = Buffer.from(slice.utf8);
  return [...slice.ends].map((end, i) => text.toString('utf8', slice.ends[i - 1] ?? 0, end));
}

describe('readLines', () => {
  it('reads the lines after a line across chunks, oldest first, up to an end line', () => {
    const all = ['one', 'two', 'three', 'four', '', 'sïx', 'seven', 'eight', 'nine'];
    assert.deepEqual(readLines(keptOf(), 0, ALL, ALL, 9), { since: 0, lines: all, missedLines: 0 });
    assert.deepEqual(readLines(keptOf(), 2, ALL, ALL, 6).lines, all.slice(2, 6));
    assert.deepEqual(readLines(keptOf(), 9, ALL, ALL, 9), { since: 9, lines: [], missedLines: 0 });
    assert.deepEqual(readLines(keptOf(), 12, ALL, ALL, 20).since, 9, 'past the end');
  });

  it('pages by lines and by bytes, always at least one line', () => {
    assert.deepEqual(readLines(keptOf(), 0, 4, ALL, 9).lines, ['one', 'two', 'three', 'four']);
    assert.deepEqual(readLines(keptOf(), 0, ALL, 6, 9).lines, ['one', 'two']);
    assert.deepEqual(readLines(keptOf(), 2, ALL, 1, 9).lines, ['three']);
    assert.deepEqual(
      readLines(keptOf(), 3, ALL, 8, 9).lines,
      ['four', '', 'sïx'],
      'sïx is 4 bytes',
    );
  });

  it('starts after the dropped lines and counts those missed', () => {
    assert.deepEqual(readLines(keptOf(4), 0, 2, ALL, 9), {
      since: 4,
      lines: ['', 'sïx'],
      missedLines: 4,
    });
    assert.equal(readLines(keptOf(4), 3, ALL, ALL, 9).missedLines, 1);
    assert.equal(readLines(keptOf(4), 6, ALL, ALL, 9).missedLines, 0);
    assert.deepEqual(readLines(keptOf(4), 0, ALL, ALL, 2), { since: 2, lines: [], missedLines: 2 });
  });

  it('views each chunk once', () => {
    const kept = keptOf();
    readLines(kept, 1, ALL, ALL, 8);
    assert.equal(kept.views, 3);
  });
});

describe('readLineBytes', () => {
  it('reads the same lines as readLines, as one copy of their bytes', () => {
    for (const [since, maxLines, maxBytes, end, dropped] of [
      [0, ALL, ALL, 9, 0],
      [2, ALL, ALL, 6, 0],
      [0, 4, ALL, 9, 0],
      [0, ALL, 6, 9, 0],
      [3, ALL, 8, 9, 0],
      [2, ALL, 1, 9, 0],
      [0, 2, ALL, 9, 4],
      [0, ALL, ALL, 2, 4],
      [9, ALL, ALL, 9, 0],
    ] as const) {
      const lines = readLines(keptOf(dropped), since, maxLines, maxBytes, end);
      const bytes = readLineBytes(keptOf(dropped), since, maxLines, maxBytes, end);
      assert.deepEqual(decode(bytes), lines.lines, `${since} ${maxLines} ${maxBytes} ${end}`);
      assert.equal(bytes.since, lines.since);
      assert.equal(bytes.missedLines, lines.missedLines);
    }
  });

  it('gives offsets into one buffer that does not share the chunks', () => {
    const kept = keptOf();
    const slice = readLineBytes(kept, 2, ALL, ALL, 7);
    assert.equal(Buffer.from(slice.utf8).toString(), 'threefoursïxseven');
    assert.deepEqual([...slice.ends], [5, 9, 9, 13, 18]);
    slice.utf8.fill(0);
    assert.equal(readLines(kept, 2, 1, ALL, 9).lines[0], 'three');
    const one = readLineBytes(keptOf(), 3, 2, ALL, 9);
    assert.equal(Buffer.from(one.utf8).toString(), 'four', 'lines of one chunk: one slice');
  });
});
