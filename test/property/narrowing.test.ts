import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Screen } from '../../src/screen/screen.js';
import { readAllHistory } from '../helpers/history.js';

/**
 * Narrowing resizes are bounded (screen/narrowing.ts). Against models: after a narrowing of any
 * output the screen is the end of the text rewrapped at the new width, and history keeps every
 * character printed, in order.
 */

const CELLS = ['a', 'b', 'x', 'e\u0301', '\u00e9', '\u4e2d'];
/** Cells a character of CELLS takes. */
const widthOf = (c: string) => (c === '\u4e2d' ? 2 : 1);

/** `count` numbered lines of up to `maxCells` characters from CELLS, drawn from `seed`. */
function textLines(seed: number, count: number, maxCells: number): string[][] {
  let state = seed || 1;
  const next = (m: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % m;
  };
  return Array.from({ length: count }, (_, n) => [
    ...`${n}:`,
    ...Array.from({ length: next(maxCells + 1) }, () => CELLS[next(CELLS.length)] as string),
  ]);
}

/** `line` broken into rows of `cols` cells; a wide character that does not fit starts a row. */
function rewrap(line: readonly string[], cols: number): string[] {
  const rows: string[] = [];
  let row = '';
  let used = 0;
  for (const c of line) {
    if (used + widthOf(c) > cols) {
      rows.push(row);
      row = '';
      used = 0;
    }
    row += c;
    used += widthOf(c);
  }
  rows.push(row);
  return rows;
}

async function screenWith(cols: number, rows: number, lines: string[][]): Promise<Screen> {
  const screen = new Screen({ cols, rows, scrollback: 2000, onReply: () => undefined });
  screen.write(Buffer.from(`${lines.map((l) => l.join('')).join('\r\n')}\r\n`));
  await screen.whenParsed();
  return screen;
}

const narrowing = fc
  .record({
    cols: fc.integer({ min: 3, max: 60 }),
    rows: fc.integer({ min: 1, max: 30 }),
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    count: fc.integer({ min: 40, max: 400 }),
    maxCells: fc.integer({ min: 0, max: 200 }),
    newCols: fc.integer({ min: 2, max: 59 }),
    newRows: fc.integer({ min: 1, max: 30 }),
  })
  .map((c) => ({ ...c, newCols: Math.min(c.newCols, c.cols - 1) }))
  .filter((c) => c.newCols >= 2);

describe('narrowing resizes', () => {
  it('show the end of the text rewrapped at the new width, the cursor row last', async () => {
    await fc.assert(
      fc.asyncProperty(narrowing, async (c) => {
        const lines = textLines(c.seed, c.count, c.maxCells);
        const screen = await screenWith(c.cols, c.rows, lines);
        try {
          const isFull = screen.historyTotal > 0;
          screen.resize(c.newCols, c.newRows);
          const expected = [...lines.flatMap((l) => rewrap(l, c.newCols)), ''];
          // A screen that never filled keeps its text at the top: compare full ones.
          fc.pre(isFull && expected.length >= c.newRows);
          const shown = screen.grid().screen.map((row) => row.trimEnd());
          assert.deepEqual(shown, expected.slice(-c.newRows));
        } finally {
          screen.dispose();
        }
      }),
      { numRuns: 60 },
    );
  });

  it('keep every character printed in history, in order', async () => {
    await fc.assert(
      fc.asyncProperty(narrowing, async (c) => {
        const lines = textLines(c.seed, c.count, c.maxCells);
        const screen = await screenWith(c.cols, c.rows, lines);
        try {
          screen.resize(c.newCols, c.newRows);
          // Push the whole screen into history.
          screen.write(Buffer.from('\r\n'.repeat(c.newRows + 1)));
          await screen.whenParsed();
          const kept = readAllHistory(screen, 2000).join('').replaceAll(' ', '');
          const printed = lines.map((l) => l.join('')).join('');
          let at = 0;
          for (const ch of kept) if (ch === printed[at]) at++;
          assert.equal(at, printed.length, `history holds ${at} of ${printed.length} characters`);
        } finally {
          screen.dispose();
        }
      }),
      { numRuns: 60 },
    );
  });
});
