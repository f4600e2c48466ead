import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTerminal, type Terminal } from '../../../src/screen/xterm.js';
import {
  asWritableLine,
  bufferSet,
  flattenLongCells,
  normalBuffer,
  rawLine,
} from '../../../src/screen/xterm-buffers.js';

function write(term: Terminal, data: string): Promise<void> {
  return new Promise((resolve) => term.write(data, resolve));
}

async function withTerminal(body: (term: Terminal) => Promise<void>): Promise<void> {
  const term = createTerminal({ cols: 6, rows: 2, scrollback: 20 });
  try {
    await body(term);
  } finally {
    term.dispose();
  }
}

const none = {} as Terminal;

describe('xterm buffers', () => {
  it('reads a line of the active buffer as raw cells', () =>
    withTerminal(async (term) => {
      await write(term, 'ab\x1b[31mc');
      const line = rawLine(term, 0);
      assert.equal(line?.length, 6);
      assert.equal((line?._data[0] as number) & 0x1fffff, 0x61);
      assert.equal((line?._data[3] as number) & 0x1fffff, 0x62);
      assert.notEqual(line?._data[7], line?._data[4], 'c has another foreground');
      assert.equal(rawLine(none, 0), undefined);
    }));

  it('finds the normal buffer with its history, also under the alternate screen', () =>
    withTerminal(async (term) => {
      await write(term, '1\r\n2\r\n3\r\n4');
      const normal = normalBuffer(term);
      assert.equal(normal?.ybase, 2);
      assert.equal(normal?.lines.length, 4);
      const marker = normal?.addMarker(1);
      await write(term, '\x1b[?1049h');
      assert.equal(normalBuffer(term), normal);
      assert.equal(bufferSet(term)?.normal, normal);
      assert.equal(marker?.line, 1);
      marker?.dispose();
      assert.equal(marker?.isDisposed, true);
      assert.equal(normalBuffer(none), undefined);
      assert.equal(bufferSet(none), undefined);
    }));

  it('gives a normal-buffer line that a resize may clear, and no other object', () =>
    withTerminal(async (term) => {
      await write(term, 'xyz');
      const normal = normalBuffer(term);
      const line = asWritableLine(normal?.lines.get(0));
      assert.equal(line?.isWrapped, false);
      line?.fill(normal?.getNullCell);
      assert.equal(term.buffer.active.getLine(0)?.translateToString(true), '');
      assert.equal(asWritableLine({ _data: new Uint32Array(3), length: 1 }), undefined);
    }));

  it('reads each long combined string of the last lines and of the alternate screen', () =>
    withTerminal(async (term) => {
      const long = `e${'\u0301'.repeat(20)}`;
      await write(term, `${long}\r\nab\r\n${long}x`);
      // Lines: history "é…", then the screen "ab" and "é…x"; 2 lines look at the screen only.
      assert.equal(flattenLongCells(term, 2, 12), 0x65);
      assert.equal(flattenLongCells(term, 3, 12), 2 * 0x65);
      assert.equal(flattenLongCells(term, 3, 30), 0, 'none longer than 30 units');
      await write(term, `\x1b[?1049h${long}`);
      assert.equal(flattenLongCells(term, 0, 12), 0x65, 'the alternate screen');
      assert.equal(flattenLongCells(none, 10, 0), 0);
    }));
});
