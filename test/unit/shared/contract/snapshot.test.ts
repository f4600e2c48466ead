/**
 * The screen layer's own types and output fit the snapshot schema the tools declare: checked by
 * tsc (the type assertions below) and at run time on a styled screen.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractScreen, type ScreenGrid } from '../../../../src/screen/grid.js';
import type { Style as ScreenStyle } from '../../../../src/screen/style.js';
import { createTerminal } from '../../../../src/screen/xterm.js';
import {
  type Snapshot,
  type Style,
  snapshotSchemas,
} from '../../../../src/shared/contract/snapshot.js';

type SameKeys<A, B> = [keyof A] extends [keyof B]
  ? [keyof B] extends [keyof A]
    ? true
    : false
  : false;

// A style attribute the screen produces but the schema lacks (or the reverse) fails to compile.
const styleKeysMatch: SameKeys<ScreenStyle, Style> = true;
// The grid a screen extracts is the snapshot's grid part.
const gridFits = (grid: ScreenGrid): Pick<Snapshot, keyof ScreenGrid> => grid;

describe('snapshot schema', () => {
  it('accepts the grid the screen extracts, styles included', async () => {
    const term = createTerminal({ cols: 20, rows: 3, scrollback: 10 });
    const sgr = ['1;3;4;5;7;9;53', '2;8', '38;5;200', '38;2;255;0;128;48;2;1;2;3', '31;42'];
    const data = sgr.map((s) => `\x1b[${s}mX\x1b[0m `).join('');
    await new Promise<void>((resolve) => term.write(data, resolve));
    const grid = gridFits(extractScreen(term));
    term.dispose();
    assert.ok(styleKeysMatch);
    assert.equal(grid.styles?.length, sgr.length);
    const { SnapshotSchema } = snapshotSchemas();
    const gridSchema = SnapshotSchema.pick({
      cols: true,
      rows: true,
      buffer: true,
      screen: true,
      cursor: true,
      styles: true,
      spans: true,
    });
    assert.deepEqual(gridSchema.parse(grid), grid);
  });
});
