import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CellJoin, MAX_CELL_UNITS } from '../../../src/screen/cell-join.js';

/** Widths as a terminal's tables give them: marks join (0), CJK takes 2, the rest 1. */
const widthOf = (cp: number) => (cp >= 0x300 && cp < 0x370 ? 0 : cp >= 0x4e00 ? 2 : 1);
const ACUTE = 0x301;

describe('CellJoin', () => {
  it('starts a cell on each character that takes a cell, with its width and units', () => {
    const cell = new CellJoin(widthOf);
    assert.equal(cell.print(0x61), true);
    assert.deepEqual([cell.width, cell.units], [1, 1]);
    assert.equal(cell.print(0x65e5), true);
    assert.deepEqual([cell.width, cell.units], [2, 1]);
    assert.equal(cell.print(0x1f642), true, 'outside the BMP: two units');
    assert.deepEqual([cell.width, cell.units], [2, 2]);
  });

  it('joins marks to the cell up to the bound, then drops every later one', () => {
    const cell = new CellJoin(widthOf, 4);
    cell.print(0x65);
    assert.deepEqual(
      [ACUTE, ACUTE, ACUTE].map((cp) => cell.print(cp)),
      [true, true, true],
    );
    assert.equal(cell.units, 4);
    assert.equal(cell.print(ACUTE), false);
    assert.equal(cell.isFull, true);
    assert.equal(cell.print(ACUTE), false);
    assert.equal(cell.print(0x66), true, 'a new cell');
    assert.equal(cell.isFull, false);
    assert.equal(cell.units, 1);
  });

  it('drops a mark that would take the cell past the bound by two units, and later ones', () => {
    const cell = new CellJoin((cp) => (cp === 0x1d165 || cp === ACUTE ? 0 : 1), 3);
    cell.print(0x61);
    cell.print(ACUTE);
    assert.equal(cell.print(0x1d165), false, 'two units: 4 > 3');
    assert.equal(cell.print(ACUTE), false, 'the cell is full from then on');
  });

  it('starts a cell on a mark with nothing to join (width 0)', () => {
    const cell = new CellJoin(widthOf);
    assert.equal(cell.print(ACUTE), true);
    assert.deepEqual([cell.width, cell.units], [0, 1]);
    cell.width = 0; // after a control: nothing to join
    for (let i = 0; i < MAX_CELL_UNITS + 5; i++) assert.equal(cell.print(ACUTE), true);
  });

  it('keeps MAX_CELL_UNITS units by default, ASCII taking one cell without asking the tables', () => {
    const cell = new CellJoin((cp) => (cp < 0x7f ? Number.NaN : 0));
    cell.print(0x65);
    assert.equal(cell.width, 1);
    let kept = 1;
    while (cell.print(ACUTE)) kept++;
    assert.equal(kept, MAX_CELL_UNITS);
  });
});
