import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Transcript } from '../../../src/screen/transcript.js';
import {
  CHUNK_BYTES,
  CHUNK_LINES,
  INDEX_BYTES_PER_LINE,
} from '../../../src/screen/transcript-chunk.js';

const ALL = Number.POSITIVE_INFINITY;
const cost = (line: string) => Buffer.byteLength(line) + INDEX_BYTES_PER_LINE;

function transcriptOf(limitBytes: number, lines: readonly string[]): Transcript {
  const t = new Transcript(limitBytes);
  for (const line of lines) t.appendText(line);
  return t;
}

describe('Transcript', () => {
  it('numbers lines from 1 and reads those after a line, oldest first', () => {
    const t = transcriptOf(1024, ['one', 'two', '', 'four']);
    assert.equal(t.total, 4);
    assert.deepEqual(t.read(0, ALL, ALL), {
      since: 0,
      lines: ['one', 'two', '', 'four'],
      missedLines: 0,
    });
    assert.deepEqual(t.read(2, ALL, ALL).lines, ['', 'four']);
    assert.deepEqual(t.read(4, ALL, ALL), { since: 4, lines: [], missedLines: 0 });
    assert.deepEqual(t.read(9, ALL, ALL), { since: 4, lines: [], missedLines: 0 }, 'past the end');
    assert.deepEqual(t.read(0, ALL, ALL, 2).lines, ['one', 'two'], 'up to an end line');
  });

  it('keeps multi-byte characters whole: accents, CJK, emoji, stand-ins', () => {
    const lines = ['é中🙂', '\u2400\u241b\uFFFD', 'a\u0301b', '日本語'.repeat(100)];
    const t = transcriptOf(1 << 20, lines);
    assert.deepEqual(t.read(0, ALL, ALL).lines, lines);
    assert.equal(
      t.keptBytes,
      lines.reduce((n, l) => n + cost(l), 0),
    );
  });

  it('pages by lines and by bytes, always at least one line', () => {
    const t = transcriptOf(1 << 20, ['aaaa', 'bbbb', 'cccc', 'dddd']);
    assert.deepEqual(t.read(0, 3, ALL).lines, ['aaaa', 'bbbb', 'cccc']);
    assert.deepEqual(t.read(0, ALL, 8).lines, ['aaaa', 'bbbb'], 'two lines of 4 bytes fit in 8');
    assert.deepEqual(t.read(0, ALL, 7).lines, ['aaaa']);
    assert.deepEqual(t.read(1, ALL, 1).lines, ['bbbb'], 'a line larger than the page still comes');
  });

  it('drops the oldest lines past the bound, counting text and index, and says so', () => {
    // Each line costs 1 + 2 bytes: 9 bytes hold three.
    const t = transcriptOf(9, ['a', 'b', 'c', 'd', 'e']);
    assert.equal(t.total, 5);
    assert.equal(t.dropped, 2);
    assert.equal(t.keptBytes, 9);
    assert.deepEqual(t.read(0, ALL, ALL), { since: 2, lines: ['c', 'd', 'e'], missedLines: 2 });
    assert.deepEqual(t.read(1, ALL, ALL), { since: 2, lines: ['c', 'd', 'e'], missedLines: 1 });
    assert.deepEqual(t.read(3, ALL, ALL), { since: 3, lines: ['d', 'e'], missedLines: 0 });
    assert.deepEqual(t.read(0, ALL, ALL, 1), { since: 1, lines: [], missedLines: 1 });
  });

  it('keeps lines that cost exactly the bound, and drops one byte over it', () => {
    const exact = transcriptOf(cost('abc') * 2, ['abc', 'def']);
    assert.deepEqual(exact.read(0, ALL, ALL).lines, ['abc', 'def']);
    const over = transcriptOf(cost('abc') * 2 - 1, ['abc', 'def']);
    assert.deepEqual(over.read(0, ALL, ALL).lines, ['def']);
  });

  it('drops a line that alone costs more than the bound, and every line before it', () => {
    const t = transcriptOf(10, ['a', 'b', 'far too long', 'c']);
    assert.equal(t.total, 4);
    assert.equal(t.dropped, 3);
    assert.deepEqual(t.read(0, ALL, ALL), { since: 3, lines: ['c'], missedLines: 3 });
  });

  it('keeps nothing with a bound of 0, yet counts every line', () => {
    const t = transcriptOf(0, ['a', '', 'b']);
    assert.equal(t.total, 3);
    assert.equal(t.dropped, 3);
    assert.equal(t.allocatedBytes, 0);
    assert.deepEqual(t.read(0, ALL, ALL), { since: 3, lines: [], missedLines: 3 });
  });

  it('crosses chunk boundaries by bytes and by line count, and frees dropped chunks', () => {
    const long = 'x'.repeat(1000);
    const t = new Transcript(1 << 30);
    for (let i = 0; i < 200; i++) t.appendText(`${i}${long}`);
    for (let i = 0; i < CHUNK_LINES + 10; i++) t.appendText('');
    const lines = t.read(0, ALL, ALL).lines;
    assert.equal(lines.length, 200 + CHUNK_LINES + 10);
    assert.equal(lines[137], `137${long}`);
    assert.equal(lines[199], `199${long}`);
    assert.equal(lines.at(-1), '');
    const bounded = new Transcript(3 * CHUNK_BYTES);
    for (let i = 0; i < 1000; i++) bounded.appendText(`${i}${long}`);
    assert.ok(bounded.keptBytes <= 3 * CHUNK_BYTES);
    assert.ok(bounded.allocatedBytes <= 4 * CHUNK_BYTES + 4 * CHUNK_LINES, 'dropped chunks freed');
    assert.equal(bounded.read(0, ALL, ALL).lines.at(-1), `999${long}`);
  });

  it('cuts a line longer than a chunk at a character boundary', () => {
    const t = transcriptOf(1 << 20, ['é'.repeat(CHUNK_BYTES)]);
    const [line] = t.read(0, ALL, ALL).lines;
    assert.equal(line, 'é'.repeat(Math.floor(CHUNK_BYTES / 2)));
  });

  it('writes rows in place across chunk ends, and through scratch where the room is short', () => {
    const rows = Array.from(
      { length: 3000 },
      (_, i) => `${i}:${'r'.repeat(i % 7 === 0 ? 900 : 40)}`,
    );
    const t = new Transcript(1 << 20);
    const scratch = Buffer.alloc(1000);
    let calls = 0;
    t.appendRows(rows.length, 1000, scratch, (i, out, at) => {
      calls++;
      return at + out.write(rows[i] as string, at);
    });
    assert.equal(calls, rows.length, 'each row written once');
    assert.deepEqual(t.read(0, ALL, ALL).lines, rows);
    assert.equal(
      t.keptBytes,
      rows.reduce((n, l) => n + cost(l), 0),
    );
  });

  it('reads lines as one copy of their bytes, across chunks, paged like read', () => {
    const long = 'é'.repeat(700);
    const lines = Array.from({ length: 400 }, (_, i) => `${i} ${long}`);
    const t = transcriptOf(1 << 22, lines);
    const decode = (s: { utf8: Uint8Array; ends: Uint32Array }) =>
      Array.from(s.ends, (end, i) =>
        Buffer.from(s.utf8.subarray(i === 0 ? 0 : s.ends[i - 1], end)).toString('utf8'),
      );
    const all = t.readBytes(0, ALL, ALL);
    assert.deepEqual(decode(all), lines);
    assert.equal(all.since, 0);
    for (const [since, maxLines, maxBytes] of [
      [10, 50, ALL],
      [95, ALL, 10_000],
      [399, ALL, 1],
    ] as const) {
      const bytes = t.readBytes(since, maxLines, maxBytes);
      assert.deepEqual(decode(bytes), t.read(since, maxLines, maxBytes).lines);
      assert.equal(bytes.since, since);
    }
    const bounded = transcriptOf(cost('bb') * 2, ['aa', 'bb', 'cc']);
    const page = bounded.readBytes(0, ALL, ALL);
    assert.deepEqual([page.since, page.missedLines, decode(page)], [1, 1, ['bb', 'cc']]);
  });

  it('frees every chunk on clear, keeping the count', () => {
    const t = transcriptOf(1 << 20, ['a', 'b', 'c']);
    t.clear();
    assert.equal(t.allocatedBytes, 0);
    assert.deepEqual(t.read(0, ALL, ALL), { since: 3, lines: [], missedLines: 3 });
    t.appendText('d');
    assert.deepEqual(t.read(3, ALL, ALL).lines, ['d']);
  });

  it('takes bytes from a range of a larger buffer', () => {
    const t = new Transcript(1024);
    const bytes = Buffer.from('..hello..');
    t.append(bytes, 2, 7);
    assert.deepEqual(t.read(0, ALL, ALL).lines, ['hello']);
  });
});
