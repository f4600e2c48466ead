/**
 * Issue 12: a refused key's advice is always usable as written. Over generated chord spellings
 * (modifier spellings in any order and case, + or - between them, ^ for Ctrl, named and
 * one-character keys) the message carries an action that parseAction accepts, with the same key
 * and modifiers; over aliases, case slips and one-edit typos of named keys, every name it
 * suggests is accepted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { WireAction } from '../../src/input/action-schema.js';
import { actionAt, parseAction } from '../../src/input/actions.js';
import { type Modifier, NAMED_KEYS } from '../../src/input/keys.js';
import { TerminalError } from '../../src/shared/errors.js';

const SPELLINGS: Readonly<Record<Modifier, readonly string[]>> = {
  Ctrl: ['Ctrl', 'Control', 'Ctl', 'C'],
  Alt: ['Alt', 'Option', 'Opt', 'Meta', 'M'],
  Shift: ['Shift', 'S'],
};
const PRINTABLE = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i));
const ALIASES: readonly (readonly [string, string])[] = [
  ['Return', 'Enter'],
  ['Esc', 'Escape'],
  ['ArrowUp', 'Up'],
  ['PgDn', 'PageDown'],
  ['Del', 'Delete'],
  ['Spacebar', 'Space'],
  ['BS', 'Backspace'],
];

/** The message of the INVALID_KEY that parsing this key action throws. */
function refusal(wire: WireAction): string {
  try {
    parseAction(wire, actionAt(0));
  } catch (err) {
    assert.ok(err instanceof TerminalError, String(err));
    assert.equal(err.code, 'INVALID_KEY', err.message);
    return err.message;
  }
  assert.fail(`${JSON.stringify(wire)} was accepted`);
}

/** Every key action written as JSON in a message (the shortest parsable text from each start). */
function actionsIn(message: string): WireAction[] {
  const found: WireAction[] = [];
  for (let start = message.indexOf('{"type":"key"'); start >= 0; ) {
    let end = message.indexOf('}', start);
    let parsed: WireAction | undefined;
    for (; end >= 0 && !parsed; end = message.indexOf('}', end + 1)) {
      try {
        parsed = JSON.parse(message.slice(start, end + 1)) as WireAction;
      } catch {}
    }
    assert.ok(parsed, `unparsable action in: ${message}`);
    found.push(parsed);
    start = message.indexOf('{"type":"key"', start + 1);
  }
  return found;
}

/** The quoted key names a message offers after "the name is" or "did you mean". */
function namesIn(message: string, key: string): string[] {
  const advice = message.slice(`actions[0]: unknown key ${JSON.stringify(key)}: `.length);
  assert.match(advice, /^(the name is|did you mean) "/, message);
  return [...advice.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`));
}

const caseOf = (s: string) =>
  fc.oneof(
    fc.constant(s),
    fc.constant(s.toLowerCase()),
    fc.constant(s.toUpperCase()),
    fc.mixedCase(fc.constant(s)),
  );

const chordKey = fc.oneof(
  fc.constantFrom(...NAMED_KEYS).chain((k) => caseOf(k).map((spelled) => ({ spelled, key: k }))),
  fc
    .constantFrom(...ALIASES)
    .chain(([alias, k]) => caseOf(alias).map((s) => ({ spelled: s, key: k }))),
  fc
    .constantFrom(...PRINTABLE)
    .map((c) => ({ spelled: c, key: /[A-Za-z]/.test(c) ? c.toLowerCase() : c })),
);

const chord = fc
  .record({
    modifiers: fc.shuffledSubarray([...(Object.keys(SPELLINGS) as Modifier[])], { minLength: 1 }),
    picks: fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
    separators: fc.array(fc.constantFrom('+', '-', ' + '), { minLength: 3, maxLength: 3 }),
    caret: fc.boolean(),
    key: chordKey,
  })
  .chain(({ modifiers, picks, separators, caret, key }) => {
    const words = modifiers.map((m, i) => {
      const options = SPELLINGS[m];
      return options[(picks[i] ?? 0) % options.length] as string;
    });
    const useCaret = caret && modifiers.length === 1 && modifiers[0] === 'Ctrl';
    return fc.tuple(...words.map(caseOf)).map((cased) => ({
      text: useCaret
        ? `^${key.spelled}`
        : cased.map((w, i) => `${w}${separators[i]}`).join('') + key.spelled,
      key: key.key,
      modifiers,
    }));
  });

/** One edit of a named key: a letter inserted, removed, replaced, or two neighbours swapped. */
const typo = fc
  .record({
    name: fc.constantFrom(...NAMED_KEYS),
    edit: fc.constantFrom('insert', 'delete', 'replace', 'swap'),
    at: fc.nat(),
    letter: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'),
  })
  .map(({ name, edit, at, letter }) => ({ name, text: applyEdit(name, edit, at, letter) }))
  .filter(({ text }) => text.length >= 3 && !(NAMED_KEYS as readonly string[]).includes(text));

function applyEdit(name: string, edit: string, at: number, letter: string): string {
  {
    const i = at % name.length;
    const head = name.slice(0, i);
    const tail = name.slice(i);
    if (edit === 'insert') return head + letter + tail;
    if (edit === 'delete') return head + tail.slice(1);
    if (edit === 'replace') return head + letter + tail.slice(1);
    return i + 1 < name.length ? head + name[i + 1] + name[i] + name.slice(i + 2) : name + letter;
  }
}

describe('key advice properties', () => {
  it('a chord written in the key names the action that sends it, which is accepted', () => {
    fc.assert(
      fc.property(chord, ({ text, key, modifiers }) => {
        const message = refusal({ type: 'key', key: text });
        const [wire, ...more] = actionsIn(message);
        assert.ok(wire, `no action in: ${message}`);
        assert.equal(more.length, 0, message);
        const action = parseAction(wire, actionAt(0));
        assert.equal(action.type, 'key');
        if (action.type !== 'key') return;
        assert.equal(action.press.key, key === 'Space' ? ' ' : key, message);
        assert.deepEqual(
          { ctrl: action.press.ctrl, alt: action.press.alt, shift: action.press.shift },
          {
            ctrl: modifiers.includes('Ctrl'),
            alt: modifiers.includes('Alt'),
            shift: modifiers.includes('Shift'),
          },
          message,
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('an alias or a case slip of a name is told the name, which is accepted', () => {
    const slip = fc.oneof(
      fc.constantFrom(...NAMED_KEYS).chain((k) => caseOf(k).map((s) => [s, k] as const)),
      fc.constantFrom(...ALIASES).chain(([a, k]) => caseOf(a).map((s) => [s, k] as const)),
    );
    fc.assert(
      fc.property(
        slip.filter(([s, k]) => s !== k),
        ([spelled, name]) => {
          const message = refusal({ type: 'key', key: spelled });
          assert.deepEqual(namesIn(message, spelled), [name], message);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a one-edit typo of a name is offered names that are accepted, its own among them', () => {
    fc.assert(
      fc.property(typo, ({ name, text }) => {
        const message = refusal({ type: 'key', key: text });
        const names = namesIn(message, text);
        assert.ok(names.length > 0, message);
        for (const n of names) parseAction({ type: 'key', key: n }, actionAt(0));
        // At most four names are offered; a typo close to many (Keypad1 → Keypadx) may lose its own.
        if (names.length < 4) assert.ok(names.includes(name), message);
      }),
      { numRuns: 2000 },
    );
  });
});
