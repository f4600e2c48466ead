import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTerminal, type Terminal } from '../../../src/screen/xterm.js';
import {
  isCursorHidden,
  onEveryScroll,
  parseNextWriteNow,
} from '../../../src/screen/xterm-terminal.js';

function write(term: Terminal, data: string): Promise<void> {
  return new Promise((resolve) => term.write(data, resolve));
}

async function withTerminal(body: (term: Terminal) => Promise<void>): Promise<void> {
  const term = createTerminal({ cols: 10, rows: 3, scrollback: 50 });
  try {
    await body(term);
  } finally {
    term.dispose();
  }
}

describe('xterm terminal internals', () => {
  it('tells whether the program hid the cursor', () =>
    withTerminal(async (term) => {
      assert.equal(isCursorHidden(term), false);
      await write(term, '\x1b[?25l');
      assert.equal(isCursorHidden(term), true);
      await write(term, '\x1b[?25h');
      assert.equal(isCursorHidden(term), false);
    }));

  it('calls a listener on every scroll until it is disposed', () =>
    withTerminal(async (term) => {
      let scrolls = 0;
      const listener = onEveryScroll(term, () => scrolls++);
      await write(term, '1\r\n2\r\n3\r\n4\r\n5\r\n6');
      assert.equal(scrolls, 3);
      listener.dispose();
      await write(term, '\r\n7');
      assert.equal(scrolls, 3);
    }));

  it('falls back to the public scroll event', () =>
    withTerminal(async (term) => {
      let scrolls = 0;
      const bare = { onScroll: term.onScroll.bind(term) } as unknown as Terminal;
      const listener = onEveryScroll(bare, () => scrolls++);
      await write(term, '1\r\n2\r\n3\r\n4');
      assert.equal(scrolls, 1);
      listener.dispose();
      assert.equal(isCursorHidden(bare), false, 'no core: not hidden');
      parseNextWriteNow(bare);
    }));

  it('parses the next write without waiting for a timer', () =>
    withTerminal(async (term) => {
      await write(term, 'a');
      parseNextWriteNow(term);
      let parsed = false;
      term.write('b', () => {
        parsed = true;
      });
      // Before any timer may run: a deferred parse would still be waiting.
      await Promise.resolve();
      assert.equal(parsed, true);
      assert.equal(term.buffer.active.getLine(0)?.translateToString(true), 'ab');
    }));
});
