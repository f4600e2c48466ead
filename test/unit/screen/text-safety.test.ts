import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  isSafeText,
  makeTextSafe,
  REPLACEMENT,
  truncateCodeUnits,
} from '../../../src/screen/text-safety.js';
import { MAX_TITLE_LENGTH, safeTitle } from '../../../src/screen/title.js';

/** Characters that must never reach a result unchanged. */
function isUnsafe(code: number): boolean {
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069) ||
    code === 0x200e ||
    code === 0x200f ||
    code === 0x061c ||
    (code >= 0xe0000 && code <= 0xe007f)
  );
}

/** Code points of `text`; a lone surrogate is returned as itself. */
function codePoints(text: string): number[] {
  return Array.from(text, (ch) => ch.codePointAt(0) as number);
}

function hasLoneSurrogate(text: string): boolean {
  return codePoints(text).some((cp) => cp >= 0xd800 && cp <= 0xdfff);
}

describe('makeTextSafe', () => {
  const cases: [string, string, string][] = [
    ['plain ASCII', 'hello, world ~', 'hello, world ~'],
    ['ordinary Unicode', 'héllo 日本 🙂 e\u0301', 'héllo 日本 🙂 e\u0301'],
    ['NUL', 'a\x00b', 'a\u2400b'],
    ['ESC', '\x1b[31m', '\u241b[31m'],
    ['tab and newline', '\t\n', '\u2409\u240a'],
    ['unit separator', '\x1f', '\u241f'],
    ['DEL', 'a\x7fb', 'a\u2421b'],
    ['C1 CSI', 'a\x9bb', `a${REPLACEMENT}b`],
    ['C1 NEL and APC', '\x85\x9f', REPLACEMENT.repeat(2)],
    ['right-to-left override', 'abc\u202Efed', `abc${REPLACEMENT}fed`],
    ['LRE..RLO', '\u202A\u202B\u202C\u202D', REPLACEMENT.repeat(4)],
    ['isolates', '\u2066\u2067\u2068\u2069', REPLACEMENT.repeat(4)],
    ['LRM, RLM, ALM', '\u200E\u200F\u061C', REPLACEMENT.repeat(3)],
    ['zero width space and BOM', '\u200B\uFEFF', REPLACEMENT.repeat(2)],
    ['word joiner..invisible plus', '\u2060\u2064', REPLACEMENT.repeat(2)],
    ['line and paragraph separators', '\u2028\u2029', REPLACEMENT.repeat(2)],
    ['tag characters', 'a\u{E0041}\u{E007F}b', `a${REPLACEMENT}${REPLACEMENT}b`],
    ['lone high surrogate', 'a\uD83Db', `a${REPLACEMENT}b`],
    ['lone low surrogate', 'a\uDE42b', `a${REPLACEMENT}b`],
    ['high surrogate at the end', 'a\uD83D', `a${REPLACEMENT}`],
    ['reversed pair', '\uDE42\uD83D', REPLACEMENT.repeat(2)],
    ['astral character kept', '\u{1F642}\u{20000}', '\u{1F642}\u{20000}'],
    ['Arabic letters kept', 'مرحبا', 'مرحبا'],
    ['Hebrew letters kept', 'שלום', 'שלום'],
  ];
  for (const [name, input, expected] of cases) {
    it(name, () => {
      assert.equal(makeTextSafe(input), expected);
      assert.equal(isSafeText(input), input === expected);
    });
  }

  it('returns the same string object for safe text', () => {
    const text = 'nothing to replace';
    assert.equal(makeTextSafe(text), text);
  });
});

describe('makeTextSafe properties', () => {
  const risky = fc.constantFrom(
    '\x00',
    '\x1b',
    '\x7f',
    '\x85',
    '\x9b',
    '\u061c',
    '\u200e',
    '\u200f',
    '\u202a',
    '\u202e',
    '\u2066',
    '\u2069',
    '\u{e0001}',
    '\u{e0041}',
    '\ud800',
    '\udfff',
    '\ud83d',
    '\ude42',
    '\u{1f642}',
  );
  const mixed = fc
    .array(fc.oneof(fc.string({ unit: 'binary', maxLength: 4 }), risky), { maxLength: 30 })
    .map((parts) => parts.join(''));

  it('never outputs a control, bidi, tag character or lone surrogate', () => {
    fc.assert(
      fc.property(mixed, (text) => {
        const out = makeTextSafe(text);
        assert.ok(!codePoints(out).some(isUnsafe), JSON.stringify(out));
        assert.ok(!hasLoneSurrogate(out), JSON.stringify(out));
        assert.ok(isSafeText(out));
      }),
    );
  });

  it('keeps the number of code points, and is idempotent', () => {
    fc.assert(
      fc.property(mixed, (text) => {
        const out = makeTextSafe(text);
        assert.equal(codePoints(out).length, codePoints(text).length);
        assert.equal(makeTextSafe(out), out);
      }),
    );
  });

  it('returns safe text unchanged', () => {
    const safeChar = fc
      .string({ unit: 'binary', minLength: 1, maxLength: 1 })
      .filter(
        (ch) =>
          !isUnsafe(ch.codePointAt(0) as number) &&
          !/[\u200b\u2028-\u2029\u2060-\u2064\ufeff]/.test(ch),
      );
    fc.assert(
      fc.property(fc.array(safeChar, { maxLength: 40 }), (chars) => {
        const text = chars.join('');
        assert.equal(makeTextSafe(text), text);
        assert.ok(isSafeText(text));
      }),
    );
  });
});

describe('truncateCodeUnits', () => {
  const smile = '\u{1F642}'; // two UTF-16 units
  const cases: [string, string, number, string][] = [
    ['shorter than max: unchanged', 'abc', 5, 'abc'],
    ['exactly max: unchanged', 'abcde', 5, 'abcde'],
    ['cut after max units', 'abcdef', 4, 'abcd'],
    ['a pair split by the cut is dropped whole', `abc${smile}`, 4, 'abc'],
    ['a pair that fits is kept', `ab${smile}x`, 4, `ab${smile}`],
    ['a pair right after the cut is dropped', `abcd${smile}`, 4, 'abcd'],
    ['max 1 before a pair: empty', `${smile}`, 1, ''],
    ['max 0: empty', 'abc', 0, ''],
    ['a lone low surrogate at the cut is kept', 'ab\udc00c', 3, 'ab\udc00'],
    ['an empty text', '', 3, ''],
  ];
  for (const [name, text, max, expected] of cases) {
    it(name, () => {
      assert.equal(truncateCodeUnits(text, max), expected);
    });
  }

  it('is the longest prefix of at most max units that does not end inside a pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 20 }), fc.nat(24), (text, max) => {
        const out = truncateCodeUnits(text, max);
        assert.ok(text.startsWith(out));
        assert.ok(out.length <= max);
        if (text.length <= max) return assert.equal(out, text);
        const last = out.charCodeAt(out.length - 1);
        const next = text.charCodeAt(out.length);
        const splitsPair = last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
        assert.ok(!splitsPair || out.length === 0, 'never ends in the first half of a pair');
        assert.ok(out.length >= max - 1);
      }),
    );
  });
});

describe('safeTitle', () => {
  const smile = '\u{1F642}';
  const cases: [string, string, string][] = [
    ['a short title is kept', 'vim: notes.txt', 'vim: notes.txt'],
    ['controls are made visible', 'a\x1bb', 'a\u241bb'],
    ['exactly MAX_TITLE_LENGTH: kept', 'x'.repeat(MAX_TITLE_LENGTH), 'x'.repeat(MAX_TITLE_LENGTH)],
    [
      'longer: cut with an ellipsis',
      'x'.repeat(MAX_TITLE_LENGTH + 1),
      `${'x'.repeat(MAX_TITLE_LENGTH - 1)}…`,
    ],
    [
      'a pair at the cut is dropped whole',
      `${'x'.repeat(MAX_TITLE_LENGTH - 2)}${smile}yy`,
      `${'x'.repeat(MAX_TITLE_LENGTH - 2)}…`,
    ],
  ];
  for (const [name, title, expected] of cases) {
    it(name, () => {
      assert.equal(safeTitle(title), expected);
    });
  }
});
