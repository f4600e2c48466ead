import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type NarrowingRows, planNarrowing } from '../../../src/screen/narrowing.js';

/**
 * Rows given as [cells, isWrapped, wides]: `cells` is what the row holds (its trimmed length when
 * it is the last row of its line; a full row otherwise).
 */
function rowsOf(spec: readonly (readonly [number, boolean, number?])[]): NarrowingRows {
  return {
    length: spec.length,
    isWrapped: (y) => spec[y]?.[1] === true,
    cells: (y) => spec[y]?.[0] ?? 0,
    wides: (y) => spec[y]?.[2] ?? 0,
  };
}

/** `count` unwrapped rows of `cells` cells, then the cursor's empty row. */
const lines = (count: number, cells: number) =>
  rowsOf([...Array.from({ length: count }, () => [cells, false] as const), [0, false]]);

describe('planNarrowing', () => {
  it('blanks nothing when every rewrapped line fits', () => {
    // 10 rows of 80 cells at 40 columns: 20 lines and the cursor's, in a buffer of 30.
    assert.deepEqual(planNarrowing(lines(10, 80), 40, 30, 10, 10), {
      blankBefore: 0,
      unwrap: false,
    });
  });

  it('keeps, from the bottom, the rows whose lines fit with one line to spare', () => {
    // 400 rows of 500 cells at 2 columns make 250 lines each: with the cursor's row, only the
    // last row fits in 399 of a 400-line buffer.
    assert.deepEqual(planNarrowing(lines(400, 500), 2, 400, 200, 400), {
      blankBefore: 399,
      unwrap: false,
    });
    // At 100 columns, 5 lines each: 79 rows and the cursor's make 396.
    assert.deepEqual(planNarrowing(lines(400, 500), 100, 400, 200, 400).blankBefore, 321);
  });

  it('counts wide characters that may not fit at the end of a new row', () => {
    // 60 cells with 30 wide characters at 3 columns: 20 lines at least, 30 at most.
    const rows = rowsOf([
      [60, false, 30],
      [60, false, 30],
      [0, false],
    ]);
    // 30 + 30 and the cursor's row fill 61 of 62 lines; without the wide characters, 41.
    assert.equal(planNarrowing(rows, 3, 62, 10, 2).blankBefore, 0);
    assert.equal(planNarrowing(rows, 3, 61, 10, 2).blankBefore, 1);
  });

  it('leaves the cursor line whole (xterm does not rewrap it) and counts its rows', () => {
    const rows = rowsOf([
      [100, false],
      [100, true],
      [100, true],
      [10, true],
    ]);
    // Cursor on the line: 4 rows as they are.
    assert.deepEqual(planNarrowing(rows, 10, 8, 5, 3), { blankBefore: 0, unwrap: false });
    // Too tall for the buffer even unwrapped: blanked whole.
    assert.deepEqual(planNarrowing(rows, 10, 4, 2, 3), { blankBefore: 4, unwrap: false });
  });

  it('cuts a long line where a new row of the whole line starts, when that still fills the screen', () => {
    // One line of 10 rows of 30 cells (300 cells) at 20 columns makes 15 lines; the cursor's row
    // below. In a buffer of 10, 8 lines fit: the rows from row 5 (offset 150) make 8, from
    // row 6 (offset 180, where a new 20-cell row starts) 6, from row 8 (offset 240) 3.
    const rows = rowsOf([
      [30, false],
      ...Array.from({ length: 9 }, () => [30, true] as const),
      [0, false],
    ]);
    assert.deepEqual(planNarrowing(rows, 20, 10, 3, 10), { blankBefore: 6, unwrap: true });
    // A 9-row screen needs 8 of them: the first row that fits, though its new rows break apart.
    assert.deepEqual(planNarrowing(rows, 20, 10, 9, 10), { blankBefore: 5, unwrap: true });
    // Room for 9: row 4 (offset 120) fits and starts a new row.
    assert.deepEqual(planNarrowing(rows, 20, 11, 3, 10), { blankBefore: 4, unwrap: true });
  });
});
