import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTerminal } from '../../../src/screen/xterm.js';
import { asRawLine, core } from '../../../src/screen/xterm-core.js';

describe('xterm core', () => {
  it('finds the core of a terminal, and none on another object', () => {
    const term = createTerminal({ cols: 10, rows: 3, scrollback: 10 });
    try {
      const found = core(term);
      assert.equal(typeof found?._bufferService?.buffers?.normal?.lines?.get, 'function');
      assert.equal(typeof found?.coreService?.isCursorHidden, 'boolean');
    } finally {
      term.dispose();
    }
    assert.equal(core({}), undefined);
    assert.equal(core({ _core: { coreService: {} } })?.coreService?.isCursorHidden, undefined);
  });

  it('takes a line as raw cells only when it has cell words and a length', () => {
    const line = { _data: new Uint32Array(6), _combined: {}, length: 2 };
    assert.equal(asRawLine(line), line);
    assert.equal(asRawLine({ _data: [0, 0, 0], length: 1 }), undefined, 'not a Uint32Array');
    assert.equal(asRawLine({ _data: new Uint32Array(3) }), undefined, 'no length');
    assert.equal(asRawLine(undefined), undefined);
    assert.equal(asRawLine(null), undefined);
  });

  it('reads a real buffer line as raw cells: 3 words per cell, the code point first', () => {
    const term = createTerminal({ cols: 4, rows: 2, scrollback: 0 });
    try {
      const lines = core(term)?._bufferService?.buffers?.normal?.lines;
      const raw = asRawLine(lines?.get?.(0));
      assert.equal(raw?.length, 4);
      assert.equal(raw?._data.length, 12);
    } finally {
      term.dispose();
    }
  });
});
