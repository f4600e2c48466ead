/**
 * The exact bytes a program receives for every kind of input, read back by a raw byte reader
 * (test/fixtures/bytes.py) through the built server: keys and modifiers in legacy, application
 * cursor/keypad, modifyOtherKeys and kitty modes; mouse reports in each tracking mode and
 * encoding; paste with and without bracketing; focus; raw bytes; Unicode text. The tests run side
 * by side, each with byte readers of its own.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FIXTURES } from '../helpers/paths.js';
import { which } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';

type Action = Record<string, unknown>;
type Case = [name: string, actions: Action[], hex: string];

const DELIMITER: Action = { type: 'raw', bytes: [0x1f, 0x1f, 0x1f] };
const key = (k: string, ...modifiers: string[]): Action =>
  modifiers.length ? { type: 'key', key: k, modifiers } : { type: 'key', key: k };
const hex = (s: string) =>
  Buffer.from(s, 'latin1')
    .toString('hex')
    .replace(/(..)(?!$)/g, '$1 ');
const utf8 = (s: string) =>
  Buffer.from(s, 'utf8')
    .toString('hex')
    .replace(/(..)(?!$)/g, '$1 ');

/** Starts the byte reader with `modes`, sends each case followed by the delimiter, reads records. */
async function bytesFor(h: Harness, modes: string, cases: Case[], cols = 120): Promise<string[]> {
  const { id } = await h.start({
    command: `python3 ${join(FIXTURES, 'bytes.py')} ${modes ? `'${modes}'` : ''}`,
    login: false,
    cols,
    rows: 60,
  });
  await h.waitFor(id, (s) => s.screen.some((l) => l.includes('READY')));
  const reply = await h.input(
    id,
    cases.flatMap(([, actions]) => [...actions, DELIMITER]),
    { settleMs: 100 },
  );
  assert.equal(reply.isError, false, reply.text.slice(0, 500));
  const snap = await h.waitFor(
    id,
    (s) => s.screen.filter((l) => l.startsWith('>')).length >= cases.length,
  );
  await h.call('terminal_close', { sessionId: id });
  return snap.screen.filter((l) => l.startsWith('>')).map((l) => l.slice(2));
}

async function check(h: Harness, modes: string, cases: Case[], cols?: number) {
  const records = await bytesFor(h, modes, cases, cols);
  cases.forEach(([name, , expected], i) => {
    assert.equal(records[i], expected, `${name} in mode ${JSON.stringify(modes)}`);
  });
}

const skip = which('python3') ? false : 'python3 is not installed';

// Side by side: each test waits on its own reader's screens, not on the CPU.
describe('bytes received by the program', { skip, timeout: 120_000, concurrency: true }, () => {
  let h: Harness;
  before(async () => {
    // A reader for each test at once: more than the default 8 sessions.
    h = await startServer({ args: ['--max-sessions', '16'] });
  });
  after(() => h.close());

  it('legacy keys, modifiers, text, paste, focus and raw bytes', () =>
    check(h, '', [
      ['Enter', [key('Enter')], '0d'],
      ['Tab', [key('Tab')], '09'],
      ['Shift+Tab', [key('Tab', 'Shift')], hex('\x1b[Z')],
      ['Backspace', [key('Backspace')], '7f'],
      ['Ctrl+Backspace', [key('Backspace', 'Ctrl')], '08'],
      ['Escape', [key('Escape')], '1b'],
      ['Space', [key('Space')], '20'],
      ['Ctrl+Space', [key('Space', 'Ctrl')], '00'],
      ['Up', [key('Up')], hex('\x1b[A')],
      ['Ctrl+Up', [key('Up', 'Ctrl')], hex('\x1b[1;5A')],
      ['Alt+Shift+Right', [key('Right', 'Alt', 'Shift')], hex('\x1b[1;4C')],
      ['Ctrl+Alt+Shift+Left', [key('Left', 'Ctrl', 'Alt', 'Shift')], hex('\x1b[1;8D')],
      ['Home', [key('Home')], hex('\x1b[H')],
      ['End', [key('End')], hex('\x1b[F')],
      ['Insert', [key('Insert')], hex('\x1b[2~')],
      ['Delete', [key('Delete')], hex('\x1b[3~')],
      ['PageUp', [key('PageUp')], hex('\x1b[5~')],
      ['Ctrl+PageDown', [key('PageDown', 'Ctrl')], hex('\x1b[6;5~')],
      ['F1', [key('F1')], hex('\x1bOP')],
      ['Shift+F4', [key('F4', 'Shift')], hex('\x1b[1;2S')],
      ['F5', [key('F5')], hex('\x1b[15~')],
      ['Ctrl+F12', [key('F12', 'Ctrl')], hex('\x1b[24;5~')],
      ['a', [key('a')], '61'],
      ['Shift+a', [key('a', 'Shift')], '41'],
      ['Ctrl+c', [key('c', 'Ctrl')], '03'],
      ['Ctrl+Z', [key('Z', 'Ctrl')], '1a'],
      ['Alt+x', [key('x', 'Alt')], '1b 78'],
      ['Ctrl+Alt+a', [key('a', 'Ctrl', 'Alt')], '1b 01'],
      ['Ctrl+[', [key('[', 'Ctrl')], '1b'],
      ['Ctrl+]', [key(']', 'Ctrl')], '1d'],
      ['Alt+Enter', [key('Enter', 'Alt')], '1b 0d'],
      ['Keypad5', [key('Keypad5')], '35'],
      ['text', [{ type: 'text', text: 'é日本語🙂' }], utf8('é日本語🙂')],
      ['paste', [{ type: 'paste', text: 'a\nb\r\nc' }], '61 0d 62 0d 63'],
      ['focus without mode 1004', [{ type: 'focus', focused: true }], ''],
      ['raw', [{ type: 'raw', bytes: [0, 255, 127, 27] }], '00 ff 7f 1b'],
    ]));

  it('application cursor and keypad modes', () =>
    check(h, '\\e[?1h\\e=', [
      ['Up', [key('Up')], hex('\x1bOA')],
      ['Left', [key('Left')], hex('\x1bOD')],
      ['Home', [key('Home')], hex('\x1bOH')],
      ['Ctrl+Up', [key('Up', 'Ctrl')], hex('\x1b[1;5A')],
      ['Keypad5', [key('Keypad5')], hex('\x1bOu')],
      ['KeypadEnter', [key('KeypadEnter')], hex('\x1bOM')],
      ['KeypadAdd', [key('KeypadAdd')], hex('\x1bOk')],
    ]));

  it('bracketed paste and focus reporting', () =>
    check(h, '\\e[?2004h\\e[?1004h', [
      ['paste', [{ type: 'paste', text: 'a\nb' }], hex('\x1b[200~a\rb\x1b[201~')],
      ['focus in', [{ type: 'focus', focused: true }], hex('\x1b[I')],
      ['focus out', [{ type: 'focus', focused: false }], hex('\x1b[O')],
    ]));

  it('kitty keyboard protocol: modified Enter, Tab and Escape are distinct keys', () =>
    check(h, '\\e[>1u', [
      ['Enter', [key('Enter')], '0d'],
      ['Shift+Enter', [key('Enter', 'Shift')], hex('\x1b[13;2u')],
      ['Ctrl+Enter', [key('Enter', 'Ctrl')], hex('\x1b[13;5u')],
      ['Ctrl+Tab', [key('Tab', 'Ctrl')], hex('\x1b[9;5u')],
      ['Escape', [key('Escape')], hex('\x1b[27u')],
      ['Shift+Escape', [key('Escape', 'Shift')], hex('\x1b[27;2u')],
      ['Ctrl+a', [key('a', 'Ctrl')], hex('\x1b[97;5u')],
      ['a', [key('a')], '61'],
      ['Ctrl+Up', [key('Up', 'Ctrl')], hex('\x1b[1;5A')],
    ]));

  it('kitty flags 8: every key as an escape code', () =>
    check(h, '\\e[>8u', [
      ['a', [key('a')], hex('\x1b[97u')],
      ['Enter', [key('Enter')], hex('\x1b[13u')],
      ['Shift+a', [key('a', 'Shift')], hex('\x1b[97;2u')],
    ]));

  it('xterm modifyOtherKeys level 2', () =>
    check(h, '\\e[>4;2m', [
      ['Shift+Enter', [key('Enter', 'Shift')], hex('\x1b[27;2;13~')],
      ['Ctrl+Enter', [key('Enter', 'Ctrl')], hex('\x1b[27;5;13~')],
      ['Ctrl+a', [key('a', 'Ctrl')], hex('\x1b[27;5;97~')],
      ['Enter', [key('Enter')], '0d'],
    ]));

  const click = (row: number, column: number, extra: Action = {}): Action => ({
    type: 'mouse',
    event: 'click',
    row,
    column,
    ...extra,
  });

  it('mouse: normal tracking in each encoding', async () => {
    await check(h, '\\e[?1000h', [
      ['default click', [click(3, 5)], hex('\x1b[M %#\x1b[M#%#')],
      [
        'default right press',
        [{ type: 'mouse', event: 'press', button: 'right', row: 2, column: 1 }],
        hex('\x1b[M"!"'),
      ],
      [
        'default wheel down with Ctrl',
        [
          {
            type: 'mouse',
            event: 'wheel',
            direction: 'down',
            row: 1,
            column: 1,
            modifiers: ['Ctrl'],
          },
        ],
        hex('\x1b[Mq!!'),
      ],
    ]);
    await check(
      h,
      '\\e[?1000h\\e[?1006h',
      [
        ['sgr click', [click(3, 5)], hex('\x1b[<0;5;3M\x1b[<0;5;3m')],
        [
          'sgr middle click with Shift',
          [click(10, 200, { button: 'middle', modifiers: ['Shift'] })],
          hex('\x1b[<5;200;10M\x1b[<5;200;10m'),
        ],
        [
          'sgr wheel up twice',
          [{ type: 'mouse', event: 'wheel', direction: 'up', count: 2, row: 4, column: 4 }],
          hex('\x1b[<64;4;4M\x1b[<64;4;4M'),
        ],
      ],
      220,
    );
    await check(h, '\\e[?1000h\\e[?1015h', [
      ['urxvt click', [click(3, 5)], hex('\x1b[32;5;3M\x1b[35;5;3M')],
    ]);
    await check(
      h,
      '\\e[?1000h\\e[?1005h',
      [
        [
          'utf8 click beyond column 95',
          [click(3, 200)],
          `${hex('\x1b[M ')} ${utf8(String.fromCodePoint(232))} 23 ${hex('\x1b[M#')} ${utf8(String.fromCodePoint(232))} 23`,
        ],
      ],
      220,
    );
  });

  it('mouse: X10 reports presses only; button- and any-event report clicks', async () => {
    await check(h, '\\e[?9h', [['x10 click', [click(3, 5)], hex('\x1b[M %#')]]);
    await check(h, '\\e[?1002h\\e[?1006h', [
      ['button-event click', [click(1, 2)], hex('\x1b[<0;2;1M\x1b[<0;2;1m')],
    ]);
    await check(h, '\\e[?1003h\\e[?1006h', [
      ['any-event click', [click(1, 2)], hex('\x1b[<0;2;1M\x1b[<0;2;1m')],
    ]);
  });

  it('refuses mouse reports the encoding cannot carry, and X10 wheel, before sending anything', async () => {
    const { id } = await h.start({
      command: `python3 ${join(FIXTURES, 'bytes.py')} '\\e[?1000h'`,
      login: false,
      cols: 230,
      rows: 10,
    });
    await h.waitFor(id, (s) => s.screen.some((l) => l.includes('READY')));
    const far = await h.input(id, [{ type: 'text', text: 'x' }, click(1, 224)]);
    assert.equal(far.data.error?.code, 'OUT_OF_BOUNDS');
    assert.equal(far.data.inputSent, false);
    const outside = await h.input(id, [click(11, 1)]);
    assert.equal(outside.data.error?.code, 'OUT_OF_BOUNDS');
    await h.call('terminal_close', { sessionId: id });
  });
});
