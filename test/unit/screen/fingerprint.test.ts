import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fingerprintScreen } from '../../../src/screen/fingerprint.js';
import { createTerminal, type Terminal } from '../../../src/screen/xterm.js';

function write(term: Terminal, data: string): Promise<void> {
  return new Promise((resolve) => term.write(data, resolve));
}

const SCREEN = '\x1b[H\x1b[2Jprompt> \x1b[1;32mok\x1b[0m\r\nsecond line';

async function withTerminal(
  body: (term: Terminal) => Promise<void>,
  cols = 20,
  rows = 4,
): Promise<void> {
  const term = createTerminal({ cols, rows, scrollback: 100 });
  try {
    await body(term);
  } finally {
    term.dispose();
  }
}

describe('fingerprintScreen', () => {
  it('is stable when nothing is written', () =>
    withTerminal(async (term) => {
      await write(term, SCREEN);
      assert.equal(fingerprintScreen(term), fingerprintScreen(term));
    }));

  it('keeps the fingerprint on an identical repaint', () =>
    withTerminal(async (term) => {
      await write(term, SCREEN);
      const before = fingerprintScreen(term);
      await write(term, SCREEN);
      assert.equal(fingerprintScreen(term), before);
      await write(term, '\x1b[Hprompt> \x1b[1;32mok\x1b[0m\r\nsecond line');
      assert.equal(fingerprintScreen(term), before);
    }));

  it('matches between two terminals showing the same thing', async () => {
    const a = createTerminal({ cols: 20, rows: 4, scrollback: 100 });
    const b = createTerminal({ cols: 20, rows: 4, scrollback: 0 });
    await write(a, SCREEN);
    await write(b, `junk\r\nmore junk${SCREEN}`);
    assert.equal(fingerprintScreen(a), fingerprintScreen(b));
    a.dispose();
    b.dispose();
  });

  const changes: [string, string][] = [
    ['a text change', '\x1b[1;1HP'],
    ['a change in the last column of the last row', '\x1b[4;20Hx\x1b[2;12H'],
    ['a colour change only', '\x1b[1;9H\x1b[1;31mok\x1b[0m\x1b[2;12H'],
    ['an attribute change only', '\x1b[1;9H\x1b[32mok\x1b[0m\x1b[2;12H'],
    ['a background on a blank cell', '\x1b[3;1H\x1b[44m \x1b[0m\x1b[2;12H'],
    ['a combining mark added', '\x1b[1;1Hp\u0301\x1b[2;12H'],
    ['a cursor move', '\x1b[1;1H'],
    ['a cursor hide', '\x1b[?25l'],
    ['a switch to the alternate buffer', '\x1b[?47h'],
    ['a scroll that moves the text up', '\r\n\n\n'],
  ];
  for (const [name, data] of changes) {
    it(`changes on ${name}`, () =>
      withTerminal(async (term) => {
        await write(term, SCREEN);
        const before = fingerprintScreen(term);
        await write(term, data);
        assert.notEqual(fingerprintScreen(term), before);
      }));
  }

  it('changes back when the alternate buffer is left unchanged', () =>
    withTerminal(async (term) => {
      await write(term, SCREEN);
      const before = fingerprintScreen(term);
      await write(term, '\x1b[?1049h');
      const alternate = fingerprintScreen(term);
      assert.notEqual(alternate, before);
      await write(term, '\x1b[?1049l');
      assert.equal(fingerprintScreen(term), before);
    }));

  it('changes on resize, even when no text moves', () =>
    withTerminal(async (term) => {
      await write(term, 'x');
      const before = fingerprintScreen(term);
      term.resize(21, 4);
      const wider = fingerprintScreen(term);
      assert.notEqual(wider, before);
      term.resize(21, 5);
      assert.notEqual(fingerprintScreen(term), wider);
    }));

  it('ignores a line scrolled into history when the visible screen is the same', () =>
    // Rows "a", "a", "" with the cursor on the blank row: printing "a" and a newline scrolls one
    // "a" into history and leaves exactly the same picture, so settlement must not see change.
    withTerminal(
      async (term) => {
        await write(term, 'a\r\na\r\n');
        const before = fingerprintScreen(term);
        await write(term, 'a\r\n');
        assert.equal(term.buffer.normal.baseY, 1);
        assert.equal(fingerprintScreen(term), before);
        await write(term, 'b\r\n');
        assert.notEqual(fingerprintScreen(term), before);
      },
      10,
      3,
    ));
});
