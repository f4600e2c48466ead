// Properties of the input encoders, checked against the test-side decoders in
// test/helpers/key-decoder.ts: what encodeKey and encodeMouse send decodes back to what was asked.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeKey, type KeyModes, LEGACY_MODES } from '../../src/input/encode-key.js';
import { encodeMouse, type MouseReport } from '../../src/input/encode-mouse.js';
import { encodePaste } from '../../src/input/encode-text.js';
import { type KeyPress, NAMED_KEYS } from '../../src/input/keys.js';
import { decodeKey, decodeMouse } from '../helpers/key-decoder.js';

const RUNS = { numRuns: 500 };
/**
 * The least share of accepted cases, half of the share measured over 20 runs of each property:
 * random presses and modes 0.83-0.89, any mouse mode 0.31-0.39 (0.34 expected from the
 * arbitraries), mouse reports in an enabled cell mode 0.68-0.75 (0.70). A run spreads 1.5-2
 * points around its share, so no run comes near a floor, while an encoder that refuses
 * everything, or half of what it should send, fails.
 */
const KEYS_ACCEPTED = 0.86 / 2;
const MOUSE_ACCEPTED = 0.34 / 2;
const BOUNDS_ACCEPTED = 0.7 / 2;

/**
 * Counts the cases a property checked in full among all it was given: a property that passes
 * over refused inputs would also pass if the encoder refused everything, so it asserts that at
 * least `minFraction` of its cases were accepted once fast-check is done.
 */
function acceptance(minFraction: number) {
  let given = 0;
  let accepted = 0;
  return {
    count(ok: boolean): void {
      given++;
      if (ok) accepted++;
    },
    check(): void {
      assert.ok(given > 0, 'the property ran no case');
      const share = accepted / given;
      assert.ok(
        share >= minFraction,
        `only ${accepted} of ${given} cases accepted (${(share * 100).toFixed(0)} %, at least ${(minFraction * 100).toFixed(0)} % expected)`,
      );
    },
  };
}

const printable = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));
const keyArb = fc.oneof(fc.constantFrom(...NAMED_KEYS), printable);
const pressFields = { key: keyArb, ctrl: fc.boolean(), alt: fc.boolean(), shift: fc.boolean() };
const pressArb: fc.Arbitrary<KeyPress> = fc.record(pressFields);
const modesArb: fc.Arbitrary<KeyModes> = fc.record({
  applicationCursorKeys: fc.boolean(),
  applicationKeypad: fc.boolean(),
  kittyKeyboardFlags: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 31 })),
  modifyOtherKeys: fc.integer({ min: 0, max: 2 }),
});

const KEYPAD_TEXT: Record<string, string> = {
  ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`Keypad${i}`, `${i}`])),
  KeypadDecimal: '.',
  KeypadDivide: '/',
  KeypadMultiply: '*',
  KeypadSubtract: '-',
  KeypadAdd: '+',
  KeypadEnter: 'Enter',
  KeypadEqual: '=',
};
/** Legacy Ctrl aliases (ctlseqs; kitty's ctrl table), key:arrives-as; a named key loses the Ctrl. */
const CTRL_ALIASES: Record<string, string> = Object.fromEntries(
  '@:SP 2:SP 4:\\ 5:] 6:^ ~:^ 7:_ /:_ Backspace:h [:Escape 3:Escape 8:Backspace ?:Backspace i:Tab m:Enter'
    .split(' ')
    .map((pair) => pair.split(':').map((k) => (k === 'SP' ? ' ' : k))),
);

/**
 * The documented many-to-one cases, applied to both sides: Space is " "; an upper-case letter is
 * the letter with Shift (kitty always; legacy forms only without Ctrl, since ^A is Ctrl+a); in
 * legacy bytes the keypad types its character and the Ctrl aliases above collapse; kitty sends
 * Shift+Space as the text " ".
 */
function canonical(p: KeyPress, bytes: string, kittyFlags: number): KeyPress {
  let { key, ctrl, shift } = p;
  const kittyForm = bytes.startsWith('\x1b[') && /^[\d:;]*u$/.test(bytes.slice(2));
  if (key === 'Space') key = ' ';
  if (/^[A-Za-z]$/.test(key)) {
    const otherKeysForm = bytes.startsWith('\x1b[27;');
    if (key !== key.toLowerCase() && (kittyForm || otherKeysForm || !ctrl)) shift = true;
    key = key.toLowerCase();
  }
  // Without disambiguate, kitty reports a keypad key as the key it types.
  if (kittyForm && !(kittyFlags & 1) && key in KEYPAD_TEXT) key = KEYPAD_TEXT[key] as string;
  if (!kittyForm && !bytes.startsWith('\x1b[27;')) {
    if (key in KEYPAD_TEXT && !bytes.startsWith('\x1bO')) key = KEYPAD_TEXT[key] as string;
    const alias = ctrl ? CTRL_ALIASES[key] : undefined;
    if (alias) [key, ctrl] = [alias, alias.length === 1];
  }
  if (key === ' ' && bytes === ' ') shift = false;
  return { key, ctrl, alt: p.alt, shift };
}

/** The text a canonical press types, for kitty's associated-text field. */
function typedText(p: KeyPress): string {
  const text = KEYPAD_TEXT[p.key] ?? p.key;
  return p.shift ? text.toUpperCase() : text;
}

describe('encodeKey properties', () => {
  it('an encoded press decodes back to the same press', () => {
    const accepted = acceptance(KEYS_ACCEPTED);
    fc.assert(
      fc.property(pressArb, modesArb, (press, modes) => {
        const result = encodeKey(press, modes);
        accepted.count(result.ok);
        if (!result.ok) return;
        const decoded = decodeKey(result.bytes);
        assert.ok(decoded, `undecodable ${JSON.stringify(result.bytes)}`);
        const want = canonical(press, result.bytes, modes.kittyKeyboardFlags);
        assert.deepEqual(
          canonical(decoded, result.bytes, modes.kittyKeyboardFlags),
          want,
          JSON.stringify(result.bytes),
        );
        if (decoded.text !== undefined) assert.equal(decoded.text, typedText(want));
      }),
      RUNS,
    );
    accepted.check();
  });

  it('re-encoding a decoded press gives the same bytes', () => {
    const accepted = acceptance(KEYS_ACCEPTED);
    fc.assert(
      fc.property(pressArb, modesArb, (press, modes) => {
        const result = encodeKey(press, modes);
        accepted.count(result.ok);
        if (!result.ok) return;
        const d = decodeKey(result.bytes);
        assert.ok(d);
        const again = encodeKey({ key: d.key, ctrl: d.ctrl, alt: d.alt, shift: d.shift }, modes);
        assert.deepEqual(again, result);
      }),
      RUNS,
    );
    accepted.check();
  });

  it('a refusal always has a non-empty reason and no bytes', () => {
    const anyPress = fc.record({
      ...pressFields,
      key: fc.oneof(keyArb, fc.string({ maxLength: 4 })),
    });
    fc.assert(
      fc.property(anyPress, modesArb, (press, modes) => {
        const result = encodeKey(press, modes);
        if (result.ok) {
          assert.ok(typeof result.bytes === 'string' && result.bytes.length > 0);
        } else {
          assert.deepEqual(Object.keys(result).sort(), ['ok', 'reason']);
          assert.ok(result.reason.trim().length > 0);
        }
      }),
      RUNS,
    );
  });

  it('refuses what spec/keys.md marks ✗: a modified keypad key outside kitty, Shift+symbol in legacy', () => {
    const keypadKey = fc.constantFrom(...NAMED_KEYS.filter((k) => k.startsWith('Keypad')));
    const modified = fc
      .record({ ctrl: fc.boolean(), alt: fc.boolean(), shift: fc.boolean() })
      .filter((m) => m.ctrl || m.alt || m.shift);
    const notKitty = modesArb.map((modes) => ({ ...modes, kittyKeyboardFlags: 0 }));
    fc.assert(
      fc.property(keypadKey, modified, notKitty, (key, mods, modes) => {
        const result = encodeKey({ key, ...mods }, modes);
        assert.ok(!result.ok && result.reason.includes('keypad keys take modifiers only'));
      }),
      RUNS,
    );
    const symbol = printable.filter((c) => !/[A-Za-z ]/.test(c));
    const pads = fc.tuple(fc.boolean(), fc.boolean());
    fc.assert(
      fc.property(symbol, fc.boolean(), fc.boolean(), pads, (key, ctrl, alt, [decckm, deckpam]) => {
        const modes = {
          ...LEGACY_MODES,
          applicationCursorKeys: decckm,
          applicationKeypad: deckpam,
        };
        const result = encodeKey({ key, ctrl, alt, shift: true }, modes);
        assert.ok(!result.ok && result.reason.includes('Shift applies to letters only'));
      }),
      RUNS,
    );
  });

  it('legacy mode encodes every named and printable key without modifiers', () => {
    fc.assert(
      fc.property(keyArb, fc.boolean(), fc.boolean(), (key, decckm, deckpam) => {
        const modes = {
          ...LEGACY_MODES,
          applicationCursorKeys: decckm,
          applicationKeypad: deckpam,
        };
        const result = encodeKey({ key, ctrl: false, alt: false, shift: false }, modes);
        assert.ok(result.ok, `${key}: ${JSON.stringify(result)}`);
      }),
      { numRuns: 300 },
    );
  });
});

const coordinate = fc.oneof(
  fc.integer({ min: 1, max: 300 }),
  fc.integer({ min: 1, max: 5000 }),
  fc.constantFrom(1, 95, 96, 222, 223, 224, 2014, 2015, 2016),
);
const reportArb: fc.Arbitrary<MouseReport> = fc.record({
  kind: fc.constantFrom('press', 'release', 'wheel'),
  button: fc.constantFrom('left', 'middle', 'right'),
  direction: fc.constantFrom('up', 'down', 'left', 'right'),
  row: coordinate,
  column: coordinate,
  ctrl: fc.boolean(),
  alt: fc.boolean(),
  shift: fc.boolean(),
});
const trackingArb = fc.constantFrom('none', 'x10', 'normal', 'button', 'any');
const encodingArb = fc.constantFrom('default', 'utf8', 'sgr', 'urxvt', 'sgr-pixels');
const LIMIT = { default: 223, utf8: 2015, sgr: Infinity, urxvt: Infinity };

describe('encodeMouse properties', () => {
  it('refuses exactly what the mode cannot report, and what it sends decodes back', () => {
    const accepted = acceptance(MOUSE_ACCEPTED);
    fc.assert(
      fc.property(reportArb, trackingArb, encodingArb, (r, mouseTracking, mouseEncoding) => {
        const result = encodeMouse(r, { mouseTracking, mouseEncoding });
        accepted.count(result.ok);
        const hasMods = r.ctrl || r.alt || r.shift;
        if (mouseTracking === 'none')
          return assert.equal(result.ok || result.code, 'MOUSE_NOT_ENABLED');
        if (mouseEncoding === 'sgr-pixels')
          return assert.equal(result.ok || result.code, 'INVALID_ARGUMENT');
        if (mouseTracking === 'x10' && (r.kind !== 'press' || hasMods)) {
          return assert.equal(result.ok || result.code, 'INVALID_ARGUMENT');
        }
        if (Math.max(r.row, r.column) > LIMIT[mouseEncoding])
          return assert.equal(result.ok || result.code, 'OUT_OF_BOUNDS');
        assert.ok(result.ok, JSON.stringify(result));
        const decoded = decodeMouse(result.bytes, mouseEncoding);
        const legacyRelease = r.kind === 'release' && mouseEncoding !== 'sgr';
        assert.deepEqual(decoded, {
          kind: r.kind,
          ...(r.kind === 'wheel'
            ? { direction: r.direction }
            : legacyRelease
              ? {}
              : { button: r.button }),
          row: r.row,
          column: r.column,
          ctrl: r.ctrl,
          alt: r.alt,
          shift: r.shift,
        });
      }),
      { numRuns: 1000 },
    );
    accepted.check();
  });

  it('default never carries a coordinate over 223, utf8 none over 2015, SGR always parses', () => {
    const accepted = acceptance(BOUNDS_ACCEPTED);
    fc.assert(
      fc.property(
        reportArb,
        fc.constantFrom('normal', 'button', 'any'),
        fc.constantFrom('default', 'utf8', 'sgr', 'urxvt'),
        (r, mouseTracking, mouseEncoding) => {
          const result = encodeMouse(r, { mouseTracking, mouseEncoding });
          accepted.count(result.ok);
          if (!result.ok) {
            // Refused only past the encoding's limit, as the property above also checks.
            assert.equal(result.code, 'OUT_OF_BOUNDS');
            return assert.ok(Math.max(r.row, r.column) > LIMIT[mouseEncoding]);
          }
          const latin1 = Buffer.from(result.bytes).toString('latin1');
          if (mouseEncoding === 'default') {
            // One byte 32 + n per coordinate, unwrapped: so n is at most 255 - 32 = 223.
            assert.deepEqual([...result.bytes.subarray(4)], [32 + r.column, 32 + r.row]);
            assert.ok(result.bytes.length === 6 && r.column <= 223 && r.row <= 223);
          }
          const decoded = decodeMouse(result.bytes, mouseEncoding);
          assert.ok(decoded);
          if (mouseEncoding === 'utf8') assert.ok(decoded.row <= 2015 && decoded.column <= 2015);
          if (mouseEncoding === 'sgr') {
            // /^\x1b\[<\d+;\d+;\d+[Mm]$/, with the ESC outside the regex (Biome bans it inside).
            assert.ok(latin1.startsWith('\x1b[<'));
            assert.match(latin1.slice(3), /^\d+;\d+;\d+[Mm]$/);
          }
        },
      ),
      { numRuns: 1000 },
    );
    accepted.check();
  });
});

describe('encodePaste properties', () => {
  // Fragments that nest: a prefix and a suffix of the end marker around a whole one.
  const pieces = fc.constantFrom(
    '\x1b[201~',
    '\x1b[200~',
    '\x1b',
    '\x1b[2',
    '\x1b[20',
    '[201~',
    '01~',
    '1~',
    '\r',
    '\n',
    'é',
  );
  const soup = fc.array(pieces, { maxLength: 12 }).map((p) => p.join(''));
  const END = '\x1b[201~';
  /** An end marker split around another one: removing the inner one joins the outer. */
  const nested = fc
    .tuple(soup, fc.integer({ min: 1, max: END.length - 1 }), soup)
    .map(([a, cut, b]) => `${a}${END.slice(0, cut)}${END}${END.slice(cut)}${b}`);
  const pasteText = fc.oneof(soup, nested, fc.string({ unit: 'binary' }));

  it('bracketed: ESC[201~ only as the final marker; never a newline', () => {
    fc.assert(
      fc.property(pasteText, (text) => {
        const out = Buffer.from(encodePaste(text, true)).toString('utf8');
        assert.ok(out.startsWith('\x1b[200~') && out.endsWith('\x1b[201~'));
        assert.equal(out.indexOf('\x1b[201~'), out.length - 6, JSON.stringify(out));
        assert.ok(!out.includes('\n'));
      }),
      RUNS,
    );
  });

  it('unbracketed: the text with line endings as CR, nothing else changed', () => {
    fc.assert(
      fc.property(pasteText, (text) => {
        const out = Buffer.from(encodePaste(text, false)).toString('utf8');
        assert.ok(!out.includes('\n'));
        assert.equal(out, Buffer.from(text.replace(/\r?\n/g, '\r'), 'utf8').toString('utf8'));
      }),
      RUNS,
    );
  });
});
