import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { createTerminal, type Terminal } from '../../src/screen/xterm.js';
import { normalBuffer } from '../../src/screen/xterm-buffers.js';
import { xtermCopyCellsFrom } from '../../src/screen/xterm-cell-copy.js';
import type { CoreLine } from '../../src/screen/xterm-core.js';

/**
 * Reflow moves cells with a linear copy (screen/xterm-cell-copy.ts) instead of xterm's own, which also
 * copies every combined character of the source from the first cell on: against a model, the
 * copy moves exactly the cells asked for, with their joined marks and extended attributes.
 */

/** A line as xterm's BufferLine keeps it, with the two methods the test calls. */
interface TestLine extends CoreLine {
  _extendedAttrs: Record<number, unknown>;
  clone(): TestLine;
  copyCellsFrom(src: TestLine, srcCol: number, destCol: number, n: number, rev: boolean): void;
}

function lineOf(term: Terminal, y: number): TestLine {
  return normalBuffer(term)?.lines.get(y) as TestLine;
}

describe('the cell copy reflow uses', () => {
  it('moves the cells it is asked to, with their joined marks and extended attributes', async () => {
    const cols = 12;
    const term = createTerminal({ cols, rows: 4, scrollback: 0 });
    const original = xtermCopyCellsFrom;
    assert.ok(original, "xterm's copy was replaced");
    const cell = fc.constantFrom(
      'a',
      'e\u0301',
      `e${'\u0301'.repeat(20)}`,
      '\u4e2d',
      '\x1b[4:3;58;2;1;2;3mu\x1b[m',
      '\x1b[31mr\x1b[m',
      ' ',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(cell, { maxLength: 14 }),
        fc.array(cell, { maxLength: 14 }),
        fc.nat(cols - 1),
        fc.nat(cols - 1),
        fc.nat(cols),
        fc.boolean(),
        fc.boolean(),
        async (first, second, srcCol, destCol, length, reverse, sameLine) => {
          const n = Math.min(length, cols - srcCol, cols - destCol);
          // Within one line, reflow copies rightwards back to front and leftwards front to back
          // (as memmove must); the other orders are never asked for.
          const overlaps = sameLine && destCol < srcCol + n && srcCol < destCol + n;
          fc.pre(!overlaps || (reverse ? destCol >= srcCol : destCol <= srcCol));
          await new Promise<void>((resolve) =>
            term.write(`\x1bc${first.join('')}\r\n\x1b[2;1H${second.join('')}`, resolve),
          );
          const [src, dest] = [lineOf(term, 0), lineOf(term, 1)];
          const ours = sameLine ? src.clone() : dest.clone();
          const theirs = sameLine ? src.clone() : dest.clone();
          const before = src.clone();
          ours.copyCellsFrom(sameLine ? ours : src, srcCol, destCol, n, reverse);
          original?.call(theirs, sameLine ? theirs : src, srcCol, destCol, n, reverse);
          // The same words as xterm's own copy; each copied cell's entries as the source had them.
          assert.deepEqual(ours._data, theirs._data);
          for (let k = 0; k < n; k++) {
            const to = destCol + k;
            const from = srcCol + k;
            assert.deepEqual(
              Array.from(ours._data.subarray(to * 3, to * 3 + 3)),
              Array.from(before._data.subarray(from * 3, from * 3 + 3)),
            );
            if ((ours._data[to * 3] as number) & 0x200000) {
              assert.equal(ours._combined[to], before._combined[from]);
            }
            if ((ours._data[to * 3 + 2] as number) & 0x10000000) {
              assert.equal(ours._extendedAttrs[to], before._extendedAttrs[from]);
            }
          }
          // Outside the copied cells, nothing new: xterm's own adds every combined character of
          // the source from srcCol on.
          for (const key of Object.keys(ours._combined).map(Number)) {
            if (key < destCol || key >= destCol + n) {
              assert.equal(ours._combined[key], (sameLine ? before : dest)._combined[key]);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
    term.dispose();
  });
});
