import assert from 'node:assert/strict';
import { isAscii } from 'node:buffer';
import { describe, it } from 'node:test';
import { type AsciiRun, newAsciiRun, scanAsciiRun } from '../../../src/screen/ascii-run.js';
import { ESCAPE, GROUND, isInString, type ParserState } from '../../../src/screen/parser-state.js';

/** Scans `text` from `start` to `stop` (default: its end) from `state`, marks joining a cell of `joinWidth`. */
function scan(
  text: string,
  { start = 0, stop = Buffer.byteLength(text), state = GROUND, joinWidth = 0 } = {},
): AsciiRun {
  const data = Buffer.from(text, 'latin1');
  return scanAsciiRun(
    data,
    data,
    isAscii(data),
    start,
    stop,
    state as ParserState,
    joinWidth,
    newAsciiRun(),
  );
}

describe('scanAsciiRun', () => {
  it('passes plain text whole, long or short: the last character takes a cell marks would join', () => {
    for (const text of ['hello', 'x'.repeat(5000)]) {
      const run = scan(text);
      assert.deepEqual(run, {
        end: text.length,
        state: GROUND,
        joinWidth: 1,
        hasPrinted: true,
        repeatsCell: false,
      });
    }
  });

  it('ends with no cell to join after a control, and has printed nothing on controls alone', () => {
    assert.equal(scan('ab\r\n').joinWidth, 0);
    assert.equal(scan('ab\r\n').hasPrinted, true);
    assert.deepEqual(scan('\r\n\t', { joinWidth: 1 }), {
      end: 3,
      state: GROUND,
      joinWidth: 0,
      hasPrinted: false,
      repeatsCell: false,
    });
  });

  it('steps through escape and control sequences, and a sequence left open', () => {
    const run = scan('a\x1b[1;31mb\x1b[0m\x1b[');
    assert.equal(run.end, 15);
    assert.notEqual(run.state, GROUND, 'inside a CSI');
    assert.equal(run.joinWidth, 0);
    const after = scan('\x1b[0mz', { state: GROUND });
    assert.equal(after.joinWidth, 1);
  });

  it('stops before a string opens, and before a byte that is not ASCII', () => {
    const osc = scan('ab\x1b]0;title\x07');
    assert.equal(osc.end, 3, 'the ESC passed; the ] opens the string');
    assert.equal(osc.state, ESCAPE);
    assert.equal(isInString(osc.state), false);
    const data = Buffer.from('abc\xe9def', 'latin1');
    const run = scanAsciiRun(data, data, false, 0, data.length, GROUND, 0, newAsciiRun());
    assert.equal(run.end, 3);
    assert.equal(run.joinWidth, 1);
  });

  it('stops at `stop`, which may fall in the middle of text', () => {
    const run = scan(`${'x'.repeat(100)}\x1b[m`, { start: 10, stop: 60 });
    assert.equal(run.end, 60);
    assert.equal(run.state, GROUND);
  });

  it('says when REP repeats the cell from before the run, not one the run printed', () => {
    assert.equal(scan('\x1b[5b').repeatsCell, true);
    assert.equal(scan('a\x1b[5b').repeatsCell, false);
    assert.equal(scan('\x1b[5mb').repeatsCell, false, 'b printed, not a final byte');
  });
});
