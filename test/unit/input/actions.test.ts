// parseAction: each type takes exactly its own fields; keys and modifiers are checked with
// suggestions; waits are either a pause or an observation. Plus payloadBytes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WireAction } from '../../../src/input/action-schema.js';
import {
  type Action,
  actionAt,
  parseAction,
  parseModifiers,
  payloadBytes,
} from '../../../src/input/actions.js';
import type { Modifier } from '../../../src/input/keys.js';
import { TerminalError } from '../../../src/shared/errors.js';

const parse = (wire: WireAction, index = 0) => parseAction(wire, actionAt(index));
const NO_MODS = { ctrl: false, alt: false, shift: false };

/** Asserts parse(wire) throws a TerminalError: this code, the message, details.actionIndex. */
function rejects(wire: WireAction, code: string, message: RegExp, index = 0): void {
  assert.throws(
    () => parse(wire, index),
    (err: unknown) => {
      assert.ok(err instanceof TerminalError, `not a TerminalError: ${err}`);
      assert.equal(err.code, code);
      assert.match(err.message, message);
      assert.equal(err.details.actionIndex, index);
      return true;
    },
  );
}

/** A pattern that matches exactly this text. */
const exactly = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

const key = (k: string, mods: Partial<typeof NO_MODS> = {}): Action => ({
  type: 'key',
  press: { key: k, ...NO_MODS, ...mods },
});
const MOUSE = {
  type: 'mouse',
  button: 'left',
  direction: 'up',
  count: 1,
  modifiers: NO_MODS,
} as const;

describe('parseAction: accepted actions', () => {
  const rows: readonly (readonly [string, WireAction, Action])[] = [
    ['text', { type: 'text', text: 'héllo 🙂' }, { type: 'text', text: 'héllo 🙂' }],
    ['paste', { type: 'paste', text: 'a\nb' }, { type: 'paste', text: 'a\nb' }],
    ['key', { type: 'key', key: 'Enter' }, key('Enter')],
    ['key Space → " "', { type: 'key', key: 'Space' }, key(' ')],
    [
      'key Ctrl+Shift',
      { type: 'key', key: 'c', modifiers: ['Ctrl', 'Shift'] },
      key('c', { ctrl: true, shift: true }),
    ],
    ['key, empty modifiers', { type: 'key', key: 'x', modifiers: [] }, key('x')],
    [
      'mouse click defaults',
      { type: 'mouse', event: 'click', row: 3, column: 7 },
      { ...MOUSE, event: 'click', row: 3, column: 7 },
    ],
    [
      'mouse press, right, Alt',
      { type: 'mouse', event: 'press', row: 1, column: 2, button: 'right', modifiers: ['Alt'] },
      {
        ...MOUSE,
        event: 'press',
        row: 1,
        column: 2,
        button: 'right',
        modifiers: { ...NO_MODS, alt: true },
      },
    ],
    [
      'mouse wheel',
      { type: 'mouse', event: 'wheel', row: 4, column: 4, direction: 'down', count: 3 },
      { ...MOUSE, event: 'wheel', row: 4, column: 4, direction: 'down', count: 3 },
    ],
    ['focus', { type: 'focus', focused: false }, { type: 'focus', focused: false }],
    [
      'raw',
      { type: 'raw', bytes: [27, 91, 65] },
      { type: 'raw', bytes: Uint8Array.from([27, 91, 65]) },
    ],
    ['wait durationMs', { type: 'wait', durationMs: 250 }, { type: 'wait', durationMs: 250 }],
    [
      'wait observe',
      { type: 'wait' },
      { type: 'observe', settleMs: undefined, settleTimeoutMs: undefined },
    ],
    [
      'wait settle',
      { type: 'wait', settleMs: 50, settleTimeoutMs: 2000 },
      { type: 'observe', settleMs: 50, settleTimeoutMs: 2000 },
    ],
    [
      'undefined fields are absent',
      { type: 'text', text: 'x', key: undefined },
      { type: 'text', text: 'x' },
    ],
  ];
  for (const [name, wire, want] of rows) it(name, () => assert.deepEqual(parse(wire), want));

  it('an exit or pattern wait stops on input unless stopOnInput is false', () => {
    const stops = (wire: WireAction) => (parse(wire) as { stopOnInput?: boolean }).stopOnInput;
    assert.equal(stops({ type: 'wait', exit: true }), true);
    assert.equal(stops({ type: 'wait', exit: true, stopOnInput: true }), true);
    assert.equal(stops({ type: 'wait', exit: true, stopOnInput: false }), false);
    assert.equal(stops({ type: 'wait', pattern: 'x', gone: true }), true);
    assert.equal(stops({ type: 'wait', pattern: 'x', stopOnInput: false }), false);
  });
});

describe('parseAction: fields must belong to the type', () => {
  const rows: readonly (readonly [WireAction, RegExp])[] = [
    [
      { type: 'text', text: 'x', key: 'a' },
      /"key" does not apply to a text action \(it takes text\)/,
    ],
    [
      { type: 'paste', text: 'x', modifiers: ['Ctrl'] },
      /"modifiers" does not apply to a paste action/,
    ],
    [
      { type: 'key', key: 'a', text: 'a' },
      /"text" does not apply to a key action \(it takes key, modifiers\)/,
    ],
    [
      { type: 'mouse', event: 'click', row: 1, column: 1, key: 'a' },
      /"key" does not apply to a mouse action/,
    ],
    [{ type: 'focus', focused: true, bytes: [1] }, /"bytes" does not apply to a focus action/],
    [{ type: 'raw', bytes: [1], durationMs: 5 }, /"durationMs" does not apply to a raw action/],
    [{ type: 'wait', focused: true }, /"focused" does not apply to a wait action/],
  ];
  for (const [wire, message] of rows) {
    it(`${wire.type} rejects ${message.source.split('"')[1]}`, () =>
      rejects(wire, 'INVALID_ARGUMENT', message));
  }
  const missing: readonly (readonly [WireAction, string])[] = [
    [{ type: 'text' }, 'text'],
    [{ type: 'paste' }, 'text'],
    [{ type: 'key' }, 'key'],
    [{ type: 'mouse', row: 1, column: 1 }, 'event'],
    [{ type: 'mouse', event: 'click', column: 1 }, 'row'],
    [{ type: 'mouse', event: 'click', row: 1 }, 'column'],
    [{ type: 'focus' }, 'focused'],
    [{ type: 'raw' }, 'bytes'],
  ];
  for (const [wire, field] of missing) {
    it(`${wire.type} needs ${field}`, () =>
      rejects(wire, 'INVALID_ARGUMENT', new RegExp(`a ${wire.type} action needs "${field}"`)));
  }
  it('the error names the action index', () =>
    rejects({ type: 'text' }, 'INVALID_ARGUMENT', /^actions\[4\]: /, 4));
});

describe('parseAction: keys and modifiers', () => {
  const CHORD = 'a chord is a key plus modifiers; send';
  const CMD =
    'a terminal program never receives Cmd, Super or Win (the desktop keeps them); send the key the program itself binds';
  // Issue 12: every refused key names its exact replacement, or the nearest names.
  const advice: readonly (readonly [string, string])[] = [
    ['Ctrl+C', `${CHORD} {"type":"key","key":"c","modifiers":["Ctrl"]}`],
    ['ctrl-c', `${CHORD} {"type":"key","key":"c","modifiers":["Ctrl"]}`],
    ['C-c', `${CHORD} {"type":"key","key":"c","modifiers":["Ctrl"]}`],
    ['^C', `${CHORD} {"type":"key","key":"c","modifiers":["Ctrl"]}`],
    ['Control+c', `${CHORD} {"type":"key","key":"c","modifiers":["Ctrl"]}`],
    ['Ctrl + c', `${CHORD} {"type":"key","key":"c","modifiers":["Ctrl"]}`],
    ['Ctrl+Shift+Tab', `${CHORD} {"type":"key","key":"Tab","modifiers":["Ctrl","Shift"]}`],
    ['shift+ctrl+tab', `${CHORD} {"type":"key","key":"Tab","modifiers":["Ctrl","Shift"]}`],
    ['Alt+Enter', `${CHORD} {"type":"key","key":"Enter","modifiers":["Alt"]}`],
    ['Ctrl+Alt+Delete', `${CHORD} {"type":"key","key":"Delete","modifiers":["Ctrl","Alt"]}`],
    ['Ctrl+esc', `${CHORD} {"type":"key","key":"Escape","modifiers":["Ctrl"]}`],
    ['Shift+A', `${CHORD} {"type":"key","key":"a","modifiers":["Shift"]}`],
    ['Ctrl+Space', `${CHORD} {"type":"key","key":"Space","modifiers":["Ctrl"]}`],
    ['Ctrl++', `${CHORD} {"type":"key","key":"+","modifiers":["Ctrl"]}`],
    ['C--', `${CHORD} {"type":"key","key":"-","modifiers":["Ctrl"]}`],
    [
      'M-x',
      'a chord is a key plus modifiers (M is Alt in a terminal); send {"type":"key","key":"x","modifiers":["Alt"]}',
    ],
    [
      'Meta+b',
      'a chord is a key plus modifiers (Meta is Alt in a terminal); send {"type":"key","key":"b","modifiers":["Alt"]}',
    ],
    [
      'Option+f',
      'a chord is a key plus modifiers (Option is Alt in a terminal); send {"type":"key","key":"f","modifiers":["Alt"]}',
    ],
    [
      'Ctrl+Entr',
      'a chord is a key plus modifiers; did you mean {"type":"key","key":"Enter","modifiers":["Ctrl"]}?',
    ],
    [
      'Ctrl+hello',
      'a chord is a key plus modifiers, and "hello" is not a key name (spec/keys.md lists them); to type text use a text action',
    ],
    ['cmd+s', `${CMD}, e.g. {"type":"key","key":"s","modifiers":["Ctrl"]} if it binds Ctrl+s`],
    ['Cmd+C', `${CMD}; to copy text, read it from the screen (terminal_snapshot)`],
    ['Super+v', `${CMD}; to paste text, send {"type":"paste","text":"..."}`],
    ['Super', CMD],
    [
      'Ctrl',
      '"Ctrl" is a modifier, not a key; put "Ctrl" in "modifiers" beside the key it holds, e.g. {"type":"key","key":"c","modifiers":["Ctrl"]}',
    ],
    [
      'meta',
      '"meta" is a modifier, not a key; put "Alt" in "modifiers" beside the key it holds, e.g. {"type":"key","key":"c","modifiers":["Alt"]}',
    ],
    [
      'C-x C-s',
      'one key per action; send them in order: {"type":"key","key":"x","modifiers":["Ctrl"]}, {"type":"key","key":"s","modifiers":["Ctrl"]}',
    ],
    [
      '\x03',
      'that is a control character; send the key that types it: {"type":"key","key":"c","modifiers":["Ctrl"]}',
    ],
    ['\r', 'that is a control character; send the key that types it: {"type":"key","key":"Enter"}'],
    ['\t', 'that is a control character; send the key that types it: {"type":"key","key":"Tab"}'],
    ['enter', 'the name is "Enter" (names are case-sensitive)'],
    ['ESCAPE', 'the name is "Escape" (names are case-sensitive)'],
    ['space', 'the name is "Space" (names are case-sensitive)'],
    ['f5', 'the name is "F5" (names are case-sensitive)'],
    [' Enter', 'the name is "Enter" (names are case-sensitive)'],
    ['Return', 'the name is "Enter"'],
    ['Esc', 'the name is "Escape"'],
    ['ArrowUp', 'the name is "Up"'],
    ['down arrow', 'the name is "Down"'],
    ['PgDn', 'the name is "PageDown"'],
    ['page_up', 'the name is "PageUp"'],
    ['Del', 'the name is "Delete"'],
    ['bksp', 'the name is "Backspace"'],
    ['kp5', 'the name is "Keypad5"'],
    ['Enterr', 'did you mean "Enter"?'],
    ['Escpae', 'did you mean "Escape"?'],
    ['PageDwon', 'did you mean "PageDown"?'],
    ['Backspce', 'did you mean "Backspace"?'],
    ['Page-Down', 'did you mean "PageDown"?'],
    ['F13', 'did you mean "F1", "F3", "F10" or "F11"?'],
    [
      'hello',
      'a key is one printable ASCII character or a name such as Enter, Tab, Up or F5; to type text use a text action',
    ],
    [
      's-expression',
      'a key is one printable ASCII character or a name such as Enter, Tab, Up or F5; to type text use a text action',
    ],
    [
      'é',
      'a key is one printable ASCII character or a name; use a text action for other characters',
    ],
    [
      '',
      'a key is one printable ASCII character or a name; use a text action for other characters',
    ],
  ];
  for (const [key, message] of advice) {
    it(`key ${JSON.stringify(key)} → INVALID_KEY: ${message}`, () =>
      rejects(
        { type: 'key', key },
        'INVALID_KEY',
        exactly(`actions[0]: unknown key ${JSON.stringify(key)}: ${message}`),
      ));
  }
  it("a chord's replacement keeps the action's own modifiers", () =>
    rejects(
      { type: 'key', key: 'Ctrl+C', modifiers: ['Shift'] },
      'INVALID_KEY',
      exactly(
        `actions[0]: unknown key "Ctrl+C": ${CHORD} {"type":"key","key":"c","modifiers":["Ctrl","Shift"]}`,
      ),
    ));
  it('a modifier listed twice → INVALID_KEY', () =>
    rejects(
      { type: 'key', key: 'a', modifiers: ['Ctrl', 'Ctrl'] },
      'INVALID_KEY',
      /modifier "Ctrl" is listed twice/,
    ));
  it('an unknown modifier → INVALID_KEY', () =>
    rejects(
      { type: 'key', key: 'a', modifiers: ['Meta' as Modifier] },
      'INVALID_KEY',
      /unknown modifier "Meta"/,
    ));
  it('mouse modifiers are checked the same way', () =>
    rejects(
      { type: 'mouse', event: 'click', row: 1, column: 1, modifiers: ['Shift', 'Shift'] },
      'INVALID_KEY',
      /listed twice/,
    ));
  it('parseModifiers maps the list to flags', () =>
    assert.deepEqual(parseModifiers(['Shift', 'Alt'], actionAt(0)), {
      ctrl: false,
      alt: true,
      shift: true,
    }));
});

describe('parseAction: text, mouse and wait checks', () => {
  const M = { type: 'mouse', row: 1, column: 1 } as const;
  const rows: readonly (readonly [string, WireAction, RegExp])[] = [
    ['text with a lone surrogate', { type: 'text', text: 'a\ud83d' }, /lone UTF-16 surrogate/],
    ['paste with a lone surrogate', { type: 'paste', text: '\udc00b' }, /lone UTF-16 surrogate/],
    ['direction on a click', { ...M, event: 'click', direction: 'up' }, /wheel events only/],
    ['count on a press', { ...M, event: 'press', count: 2 }, /wheel events only/],
    [
      'button on a wheel',
      { ...M, event: 'wheel', direction: 'up', button: 'left' },
      /"button" does not apply/,
    ],
    ['a wheel without direction', { ...M, event: 'wheel' }, /a wheel event needs "direction"/],
    [
      'wait durationMs and settleMs',
      { type: 'wait', durationMs: 10, settleMs: 10 },
      /one of durationMs .* not durationMs and settleMs/,
    ],
    [
      'wait durationMs and settleTimeoutMs',
      { type: 'wait', durationMs: 1, settleTimeoutMs: 500 },
      /not durationMs and settleMs\/settleTimeoutMs/,
    ],
    ['wait pattern and exit', { type: 'wait', pattern: 'x', exit: true }, /not pattern and exit/],
    [
      'wait gone without pattern',
      { type: 'wait', gone: true },
      /"gone" applies to a wait with pattern/,
    ],
    [
      'wait timeoutMs on a settle',
      { type: 'wait', settleMs: 5, timeoutMs: 9 },
      /"timeoutMs" applies/,
    ],
    [
      'wait stopOnInput on a settle',
      { type: 'wait', settleMs: 5, stopOnInput: false },
      /"stopOnInput" applies to a wait with pattern, exit or command/,
    ],
    [
      'wait stopOnInput on a pause',
      { type: 'wait', durationMs: 5, stopOnInput: false },
      /"stopOnInput" applies/,
    ],
    [
      'wait with an invalid regex',
      { type: 'wait', pattern: '(' },
      /not a valid regular expression/,
    ],
  ];
  for (const [name, wire, message] of rows)
    it(name, () => rejects(wire, 'INVALID_ARGUMENT', message));
});

describe('payloadBytes', () => {
  it('counts UTF-8 bytes of text and paste, and raw bytes; nothing else', () => {
    const actions = [
      { type: 'text', text: 'é🙂' }, // 2 + 4
      { type: 'paste', text: 'abc' }, // 3
      { type: 'raw', bytes: Uint8Array.from([1, 2]) }, // 2
      key('Enter'),
      { type: 'focus', focused: true },
      { type: 'wait', durationMs: 5 },
    ] as const satisfies readonly Action[];
    assert.equal(payloadBytes(actions), 11);
  });
  it('an empty batch is 0', () => assert.equal(payloadBytes([]), 0));
});
