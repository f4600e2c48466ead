import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTerminal } from '../../../src/screen/xterm.js';
import {
  type CopyLine,
  copyCells,
  installCellCopy,
  xtermCopyCellsFrom,
} from '../../../src/screen/xterm-cell-copy.js';
import { core } from '../../../src/screen/xterm-core.js';

const IS_COMBINED = 0x200000;
const BG_HAS_EXTENDED = 0x10000000;

/** A line of `cells` cells, cell i holding code point 0x61 + i, nothing combined. */
function lineOf(cells: number): CopyLine {
  const data = new Uint32Array(cells * 3);
  for (let i = 0; i < cells; i++) data[i * 3] = 0x61 + i;
  return { _data: data, _combined: {}, _extendedAttrs: {} };
}

const contents = (line: CopyLine) => [...line._data].filter((_, i) => i % 3 === 0);

describe('copyCells', () => {
  it('copies the cells asked for, their three words each, and nothing else', () => {
    const src = lineOf(6);
    src._data[2 * 3 + 1] = 7; // foreground of cell 2
    const dest = lineOf(6);
    dest._data.fill(0);
    copyCells.call(dest, src, 2, 1, 3, false);
    assert.deepEqual(contents(dest), [0, 0x63, 0x64, 0x65, 0, 0]);
    assert.equal(dest._data[1 * 3 + 1], 7);
  });

  it('moves a copied cell’s combined character and extended attributes, only those', () => {
    const src = lineOf(5);
    src._data[1 * 3] = (src._data[1 * 3] as number) | IS_COMBINED;
    src._combined[1] = 'e\u0301\u0301';
    src._combined[4] = 'o\u0308';
    src._data[4 * 3] = (src._data[4 * 3] as number) | IS_COMBINED;
    const attrs = { underlineStyle: 3 };
    src._data[2 * 3 + 2] = BG_HAS_EXTENDED;
    src._extendedAttrs[2] = attrs;
    const dest = lineOf(5);
    copyCells.call(dest, src, 0, 1, 3, false);
    assert.deepEqual(dest._combined, { 2: 'e\u0301\u0301' }, 'not cell 4, which is not copied');
    assert.deepEqual(dest._extendedAttrs, { 3: attrs });
  });

  it('copies within one line in either order, as asked, when the ranges overlap', () => {
    const right = lineOf(5);
    copyCells.call(right, right, 0, 1, 4, true);
    assert.deepEqual(
      contents(right),
      [0x61, 0x61, 0x62, 0x63, 0x64],
      'from the end: shifted right',
    );
    const left = lineOf(5);
    copyCells.call(left, left, 1, 0, 4, false);
    assert.deepEqual(
      contents(left),
      [0x62, 0x63, 0x64, 0x65, 0x65],
      'from the start: shifted left',
    );
  });
});

describe('installCellCopy', () => {
  it('replaces the buffer line copy of the first terminal, keeping xterm’s for tests', () => {
    const term = createTerminal({ cols: 5, rows: 2, scrollback: 0 });
    try {
      installCellCopy(term); // once is enough: a second call looks no further
      const line = core(term)?._bufferService?.buffers?.normal?.lines?.get?.(0) as object;
      const proto = Object.getPrototypeOf(line) as { copyCellsFrom: unknown };
      assert.equal(proto.copyCellsFrom, copyCells);
      assert.equal(typeof xtermCopyCellsFrom, 'function');
      assert.notEqual(xtermCopyCellsFrom, copyCells);
    } finally {
      term.dispose();
    }
  });
});
