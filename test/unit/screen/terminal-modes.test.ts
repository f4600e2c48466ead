import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ModeTracker,
  type MouseEncoding,
  type MouseTracking,
  SYNC_UPDATE_TIMEOUT_MS,
  type TerminalModes,
} from '../../../src/screen/terminal-modes.js';
import { createTerminal, type Terminal } from '../../../src/screen/xterm.js';

interface Harness {
  readonly term: Terminal;
  readonly tracker: ModeTracker;
  readonly replies: string[];
  write(data: string): Promise<void>;
  modes(): TerminalModes;
  setNow(ms: number): void;
  dispose(): void;
}

function harness(): Harness {
  const term = createTerminal({ cols: 20, rows: 4, scrollback: 10 });
  const replies: string[] = [];
  let now = 0;
  const tracker = new ModeTracker(
    term,
    (data) => replies.push(data),
    () => now,
  );
  return {
    term,
    tracker,
    replies,
    write: (data) => new Promise((resolve) => term.write(data, resolve)),
    modes: () => tracker.modes(),
    setNow: (ms) => {
      now = ms;
    },
    dispose: () => {
      tracker.dispose();
      term.dispose();
    },
  };
}

async function modesAfter(data: string): Promise<TerminalModes> {
  const h = harness();
  await h.write(data);
  const modes = h.modes();
  h.dispose();
  return modes;
}

describe('ModeTracker defaults', () => {
  it('starts with everything off', async () => {
    assert.deepEqual(await modesAfter(''), {
      applicationCursorKeys: false,
      applicationKeypad: false,
      bracketedPaste: false,
      focusEvents: false,
      mouseTracking: 'none',
      mouseEncoding: 'default',
      kittyKeyboardFlags: 0,
      modifyOtherKeys: 0,
      synchronizedUpdate: false,
      cursorVisible: true,
      alternateScreen: false,
    });
  });

  it('reads the DEC modes xterm tracks', async () => {
    const modes = await modesAfter('\x1b[?1h\x1b=\x1b[?2004h\x1b[?1004h\x1b[?25l\x1b[?1049h');
    assert.equal(modes.applicationCursorKeys, true);
    assert.equal(modes.applicationKeypad, true);
    assert.equal(modes.bracketedPaste, true);
    assert.equal(modes.focusEvents, true);
    assert.equal(modes.cursorVisible, false);
    assert.equal(modes.alternateScreen, true);
  });
});

describe('ModeTracker mouse', () => {
  const tracking: [string, MouseTracking][] = [
    ['\x1b[?9h', 'x10'],
    ['\x1b[?1000h', 'normal'],
    ['\x1b[?1002h', 'button'],
    ['\x1b[?1003h', 'any'],
    ['\x1b[?1003h\x1b[?1003l', 'none'],
    ['\x1b[?1000h\x1b[?1002h', 'button'],
  ];
  for (const [data, expected] of tracking) {
    it(`${JSON.stringify(data)} -> tracking ${expected}`, async () => {
      assert.equal((await modesAfter(data)).mouseTracking, expected);
    });
  }

  const encodings: [string, MouseEncoding][] = [
    ['\x1b[?1005h', 'utf8'],
    ['\x1b[?1006h', 'sgr'],
    ['\x1b[?1015h', 'urxvt'],
    ['\x1b[?1016h', 'sgr-pixels'],
    ['\x1b[?1006h\x1b[?1006l', 'default'],
    ['\x1b[?1005h\x1b[?1005l', 'default'],
    ['\x1b[?1015h\x1b[?1015l', 'default'],
    ['\x1b[?1016h\x1b[?1016l', 'default'],
    ['\x1b[?1006h\x1b[?1015h', 'urxvt'],
    ['\x1b[?1006h\x1b[?1015h\x1b[?1006l', 'urxvt'],
    ['\x1b[?1000;1006h', 'sgr'],
  ];
  for (const [data, expected] of encodings) {
    it(`${JSON.stringify(data)} -> encoding ${expected}`, async () => {
      assert.equal((await modesAfter(data)).mouseEncoding, expected);
    });
  }

  it('RIS (ESC c) resets tracking and encoding', async () => {
    const modes = await modesAfter('\x1b[?1003h\x1b[?1006h\x1bc');
    assert.equal(modes.mouseTracking, 'none');
    assert.equal(modes.mouseEncoding, 'default');
  });
});

describe('ModeTracker kitty keyboard', () => {
  const stacks: [string, number][] = [
    ['\x1b[>1u', 1],
    ['\x1b[>1u\x1b[>3u', 3],
    ['\x1b[>1u\x1b[>3u\x1b[<u', 1],
    ['\x1b[>1u\x1b[>3u\x1b[<2u', 0],
    ['\x1b[<u', 0],
    ['\x1b[>1u\x1b[<9u', 0],
    ['\x1b[>255u', 31],
    ['\x1b[=5u', 5],
    ['\x1b[=5;1u', 5],
    ['\x1b[=5u\x1b[=2;2u', 7],
    ['\x1b[=7u\x1b[=2;3u', 5],
    ['\x1b[>1u\x1b[=12u\x1b[<u', 0],
    ['\x1b[>1u\x1b[>2u\x1bc', 0],
    ['\x1b[?1049h\x1b[>2u\x1bc\x1b[?1049h', 0],
  ];
  for (const [data, expected] of stacks) {
    it(`${JSON.stringify(data)} -> flags ${expected}`, async () => {
      assert.equal((await modesAfter(data)).kittyKeyboardFlags, expected);
    });
  }

  it('bounds the stack, dropping the oldest pushes', async () => {
    const h = harness();
    for (let i = 1; i <= 70; i++) await h.write(`\x1b[>${i % 32}u`);
    await h.write('\x1b[<62u');
    assert.equal(h.modes().kittyKeyboardFlags, 8);
    await h.write('\x1b[<u');
    assert.equal(h.modes().kittyKeyboardFlags, 0);
    h.dispose();
  });

  it('answers CSI ? u with the current flags through the reply callback', async () => {
    const h = harness();
    await h.write('\x1b[?u\x1b[>1u\x1b[?u\x1b[=3;2u\x1b[?u\x1b[<u\x1b[?u');
    assert.deepEqual(h.replies, ['\x1b[?0u', '\x1b[?1u', '\x1b[?3u', '\x1b[?0u']);
    h.dispose();
  });

  it('keeps separate stacks for the main and alternate screens', async () => {
    const h = harness();
    await h.write('\x1b[>1u');
    await h.write('\x1b[?1049h');
    assert.equal(h.modes().kittyKeyboardFlags, 0);
    await h.write('\x1b[>4u\x1b[?u');
    assert.equal(h.modes().kittyKeyboardFlags, 4);
    await h.write('\x1b[?1049l\x1b[?u');
    assert.equal(h.modes().kittyKeyboardFlags, 1);
    await h.write('\x1b[?1049h');
    assert.equal(h.modes().kittyKeyboardFlags, 4);
    assert.deepEqual(h.replies, ['\x1b[?4u', '\x1b[?1u']);
    h.dispose();
  });

  it('consumes the sequences: nothing is printed', async () => {
    const h = harness();
    await h.write('\x1b[>1u\x1b[=1;2u\x1b[<u\x1b[?u\x1b[>4;2m\x1b[>4n');
    const line = h.term.buffer.active.getLine(0)?.translateToString(true);
    assert.equal(line, '');
    h.dispose();
  });
});

describe('ModeTracker modifyOtherKeys', () => {
  const levels: [string, number][] = [
    ['\x1b[>4;2m', 2],
    ['\x1b[>4;1m', 1],
    ['\x1b[>4;2m\x1b[>4;0m', 0],
    ['\x1b[>4;2m\x1b[>4m', 0],
    ['\x1b[>4;2m\x1b[>4n', 0],
    ['\x1b[>4;7m', 0],
    ['\x1b[>4;2m\x1b[>1;2m', 2],
    ['\x1b[>4;2m\x1b[>1n', 2],
    ['\x1b[>4;2m\x1bc', 0],
    ['\x1b[>4;2m\x1b[!p', 0],
  ];
  for (const [data, expected] of levels) {
    it(`${JSON.stringify(data)} -> level ${expected}`, async () => {
      assert.equal((await modesAfter(data)).modifyOtherKeys, expected);
    });
  }
});

describe('ModeTracker synchronized update', () => {
  it('is on from CSI ?2026h until CSI ?2026l', async () => {
    const h = harness();
    h.setNow(5000);
    await h.write('\x1b[?2026h');
    assert.equal(h.modes().synchronizedUpdate, true);
    assert.equal(h.tracker.isSynchronizedUpdate(), true);
    await h.write('\x1b[?2026l');
    assert.equal(h.tracker.isSynchronizedUpdate(), false);
    h.dispose();
  });

  it(`is treated as abandoned ${SYNC_UPDATE_TIMEOUT_MS} ms after it began`, async () => {
    const h = harness();
    h.setNow(100);
    await h.write('\x1b[?2026h');
    h.setNow(100 + SYNC_UPDATE_TIMEOUT_MS - 1);
    assert.equal(h.tracker.isSynchronizedUpdate(), true);
    h.setNow(100 + SYNC_UPDATE_TIMEOUT_MS);
    assert.equal(h.tracker.isSynchronizedUpdate(), false);
    assert.equal(h.modes().synchronizedUpdate, false);
    h.dispose();
  });

  it('times a new update from its own start', async () => {
    const h = harness();
    await h.write('\x1b[?2026h');
    h.setNow(3000);
    await h.write('\x1b[?2026l\x1b[?2026h');
    h.setNow(3000 + SYNC_UPDATE_TIMEOUT_MS - 1);
    assert.equal(h.tracker.isSynchronizedUpdate(), true);
    h.dispose();
  });

  it('is reset by RIS', async () => {
    assert.equal((await modesAfter('\x1b[?2026h\x1bc')).synchronizedUpdate, false);
  });
});

describe('ModeTracker dispose', () => {
  it('stops tracking and replying', async () => {
    const h = harness();
    h.tracker.dispose();
    await h.write('\x1b[>1u\x1b[?u\x1b[?1006h');
    assert.deepEqual(h.replies, []);
    assert.equal(h.tracker.modes().kittyKeyboardFlags, 0);
    assert.equal(h.tracker.modes().mouseEncoding, 'default');
    h.term.dispose();
  });
});
