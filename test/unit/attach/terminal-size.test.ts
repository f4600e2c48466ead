import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_TERMINAL_SIZE } from '../../../src/attach/protocol.js';
import { readTerminalSize } from '../../../src/attach/terminal-size.js';

describe('readTerminalSize', () => {
  it('gives a size the terminal reported', () => {
    assert.deepEqual(readTerminalSize(80, 24), { cols: 80, rows: 24 });
    assert.deepEqual(readTerminalSize(1, 1), { cols: 1, rows: 1 });
  });

  it('gives none while the terminal has not reported one: 0 in either, or no number', () => {
    for (const [columns, rows] of [
      [0, 0], // docker exec -t, at first
      [80, 0], // stty rows 0
      [0, 24],
      [undefined, undefined], // Node could not read it
      [80, undefined],
      [Number.NaN, 24],
      [80.5, 24],
      [-1, 24],
      [Number.POSITIVE_INFINITY, 24],
      ['80', '24'],
      [null, null],
    ]) {
      assert.equal(readTerminalSize(columns, rows), undefined, `${columns}x${rows}`);
    }
  });

  it('counts a terminal larger than the protocol allows as that large', () => {
    assert.deepEqual(readTerminalSize(MAX_TERMINAL_SIZE + 1, 50_000), {
      cols: MAX_TERMINAL_SIZE,
      rows: MAX_TERMINAL_SIZE,
    });
  });
});
