/**
 * ScreenHistory on a real emulator: rows that scroll off are counted and kept, the scrollback
 * view is bounded by --scrollback, pages of history say what the transcript's bound dropped.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  EMULATOR_SCROLLBACK,
  type HistoryOptions,
  ScreenHistory,
} from '../../../src/screen/screen-history.js';
import { createTerminal, type Terminal } from '../../../src/screen/xterm.js';

const ALL = Number.POSITIVE_INFINITY;

function historyOf(options: Partial<HistoryOptions> = {}, rows = 5) {
  const term = createTerminal({ cols: 20, rows, scrollback: EMULATOR_SCROLLBACK });
  const history = new ScreenHistory(term, EMULATOR_SCROLLBACK, { scrollback: 10, ...options });
  const done = () => {
    history.dispose();
    term.dispose();
  };
  return { term, history, done };
}

const feed = (term: Terminal, data: string) =>
  new Promise<void>((resolve) => term.write(data, resolve));

/** Lines `L<first>` … `L<last>`, each ending in CR LF. */
const numbered = (first: number, last: number) =>
  Array.from({ length: last - first + 1 }, (_, i) => `L${first + i}\r\n`).join('');
const names = (first: number, last: number) =>
  Array.from({ length: last - first + 1 }, (_, i) => `L${first + i}`);

describe('ScreenHistory', () => {
  it('counts the rows that scroll off the top, none before', async () => {
    const { term, history, done } = historyOf();
    assert.equal(history.total, 0);
    await feed(term, numbered(1, 4));
    assert.equal(history.total, 0, 'four lines and the cursor row fit on five rows');
    await feed(term, numbered(5, 5));
    assert.equal(history.total, 1);
    await feed(term, numbered(6, 5000));
    assert.equal(history.total, 4996);
    assert.equal(history.isExact, true);
    done();
  });

  it('shows the last lines in the scrollback view, at most --scrollback of them', async () => {
    const { term, history, done } = historyOf({ scrollback: 10 });
    assert.deepEqual(history.view(5), { lines: [], availableLines: 0 });
    await feed(term, numbered(1, 8));
    assert.deepEqual(history.view(10), { lines: names(1, 4), availableLines: 4 });
    assert.deepEqual(history.view(2), { lines: ['L3', 'L4'], availableLines: 4 });
    assert.deepEqual(history.view(0), { lines: [], availableLines: 4 });
    await feed(term, numbered(9, 2000));
    assert.deepEqual(history.view(100), { lines: names(1987, 1996), availableLines: 10 });
    done();
  });

  it('shows nothing in the view with --scrollback 0, while history keeps every line', async () => {
    const { term, history, done } = historyOf({ scrollback: 0 });
    await feed(term, numbered(1, 300));
    assert.deepEqual(history.view(10), { lines: [], availableLines: 0 });
    assert.deepEqual(history.since(0, ALL, ALL).lines, names(1, 296));
    done();
  });

  it('pages history with since(), by lines, by bytes and up to an end', async () => {
    const { term, history, done } = historyOf();
    await feed(term, numbered(1, 104));
    assert.deepEqual(history.since(10, 3, ALL), {
      since: 10,
      lines: ['L11', 'L12', 'L13'],
      total: 100,
      missedLines: 0,
    });
    assert.deepEqual(history.since(98, 10, ALL).lines, ['L99', 'L100']);
    assert.deepEqual(history.since(100, 10, ALL).lines, []);
    assert.deepEqual(history.since(0, ALL, ALL, 3).lines, ['L1', 'L2', 'L3']);
    assert.deepEqual(history.since(0, ALL, ALL, 1000).lines.length, 100, 'end past the last');
    // Past the first line, a page stops before the byte bound; the first always comes.
    const page = history.since(0, ALL, 6);
    assert.ok(page.lines.length >= 1 && page.lines.length < 100, String(page.lines.length));
    assert.deepEqual(page.lines, names(1, page.lines.length));
    assert.equal(history.since(0, ALL, 0).lines[0], 'L1');
    done();
  });

  it('says how many lines the transcript bound dropped before a page was read', async () => {
    // L10-L99 cost 3 bytes of text and 2 of index, L100 one more: 70 bytes hold L88-L100.
    const { term, history, done } = historyOf({ transcriptBytes: 70, scrollback: 50 });
    await feed(term, numbered(1, 104));
    assert.equal(history.total, 100);
    const page = history.since(0, ALL, ALL);
    assert.deepEqual(page, { since: 87, lines: names(88, 100), total: 100, missedLines: 87 });
    assert.equal(history.since(90, 2, ALL).missedLines, 0);
    assert.equal(history.since(50, 1, ALL).missedLines, 37);
    assert.deepEqual(history.view(50), { lines: names(88, 100), availableLines: 13 });
    assert.equal(history.stats().dropped, 87);
    done();
  });

  it('gives the same lines as bytes, one UTF-8 copy with line ends', async () => {
    const { term, history, done } = historyOf();
    await feed(term, `héllo\r\n${numbered(1, 9)}`);
    const slice = history.bytes(0, 3, ALL, history.total);
    assert.equal(slice.since, 0);
    assert.equal(slice.missedLines, 0);
    const text = Buffer.from(slice.utf8).toString('utf8');
    const ends = [...slice.ends];
    assert.equal(ends.length, 3);
    const lines = ends.map((end, i) =>
      Buffer.from(slice.utf8.subarray(i === 0 ? 0 : ends[i - 1], end)).toString('utf8'),
    );
    assert.deepEqual(lines, ['héllo', 'L1', 'L2']);
    assert.ok(text.startsWith('héllo'));
    assert.deepEqual(history.bytes(0, ALL, ALL, 2).ends.length, 2, 'up to the end given');
    assert.deepEqual(history.bytes(0, ALL, ALL, 1000).ends.length, history.total);
    done();
  });

  it('drops its lines on release and keeps its count after dispose', async () => {
    const { term, history } = historyOf();
    await feed(term, numbered(1, 20));
    assert.equal(history.total, 16);
    history.release();
    assert.equal(history.stats().keptBytes, 0);
    history.dispose();
    assert.equal(history.total, 16);
    term.dispose();
  });
});
