/**
 * Reading the terminal's mode: the `stty -g` text, and a reader that asks at most every
 * MODE_REFRESH_MS and trusts an answer for MODE_FRESH_MS (a fake `stty` and clock).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  createTerminalModeReader,
  isPasswordModeText,
  MODE_FRESH_MS,
  MODE_REFRESH_MS,
} from '../../../src/pty/terminal-mode.js';

describe('isPasswordModeText', () => {
  const cc = '3:1c:7f:15:4:0:1:0:11:13:1a:0:12:f:17:16:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0:0';
  const rows: [string, string, boolean | undefined][] = [
    ['a shell: echo and ICANON on', `500:5:bf:8a3b:${cc}`, false],
    ['a password prompt: echo off, ICANON on', `500:5:bf:8a33:${cc}`, true],
    ['raw mode (vim): both off', `0:4:bf:8a30:${cc}`, false],
    ['cbreak with echo: ICANON off', `500:5:bf:8a39:${cc}`, false],
    ['not stty output', 'stty: /dev/pts/9: No such file', undefined],
  ];
  for (const [name, text, expected] of rows) {
    it(name, () => assert.equal(isPasswordModeText(text), expected));
  }
});

describe('createTerminalModeReader', () => {
  function world() {
    let now = 0;
    const pending: ((text: string | undefined) => void)[] = [];
    let reads = 0;
    const reader = createTerminalModeReader(
      '/dev/pts/9',
      (_path, done) => {
        reads++;
        pending.push(done);
      },
      () => now,
    );
    return {
      reader,
      reads: () => reads,
      advance: (ms: number) => {
        now += ms;
      },
      answer: (text: string | undefined) => pending.shift()?.(text),
    };
  }
  const PROMPT = '500:5:bf:8a33:3:1c';
  const SHELL = '500:5:bf:8a3b:3:1c';

  it('says no until an answer comes, then trusts it while fresh', () => {
    const w = world();
    assert.equal(w.reader.isPasswordMode(), false);
    assert.equal(w.reads(), 1);
    w.answer(PROMPT);
    assert.equal(w.reader.isPasswordMode(), true);
    w.advance(MODE_FRESH_MS + 1);
    assert.equal(w.reader.isPasswordMode(), false, 'stale');
  });

  it('asks at most every MODE_REFRESH_MS, one read at a time', () => {
    const w = world();
    w.reader.isPasswordMode();
    w.advance(MODE_REFRESH_MS * 3);
    w.reader.isPasswordMode();
    assert.equal(w.reads(), 1, 'the first read is still out');
    w.answer(SHELL);
    w.reader.isPasswordMode();
    assert.equal(w.reads(), 2);
    w.advance(MODE_REFRESH_MS - 1);
    w.reader.isPasswordMode();
    assert.equal(w.reads(), 2);
  });

  it('a failed read, or one after dispose, counts as no', () => {
    const w = world();
    w.reader.isPasswordMode();
    w.answer(undefined);
    assert.equal(w.reader.isPasswordMode(), false);
    w.advance(MODE_REFRESH_MS);
    w.reader.isPasswordMode();
    w.reader.dispose();
    w.answer(PROMPT);
    assert.equal(w.reader.isPasswordMode(), false);
  });
});
