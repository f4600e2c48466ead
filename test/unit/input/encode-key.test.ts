// encodeKey rows: key + modifiers + modes → exact bytes, or a refusal whose reason contains the
// given words. Legacy rows follow xterm's ctlseqs (PC-Style Function Keys), modifyOtherKeys rows
// xterm's CSI 27;m;code~, kitty rows https://sw.kovidgoyal.net/kitty/keyboard-protocol/.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeKey, type KeyModes, LEGACY_MODES } from '../../../src/input/encode-key.js';
import type { KeyPress } from '../../../src/input/keys.js';

/** "Ctrl+Alt+x" → KeyPress; the key follows the modifiers ("Ctrl++" is Ctrl and "+", SP is " "). */
function parseSpec(spec: string): KeyPress {
  const m = /^((?:(?:Ctrl|Alt|Shift)\+)*)(.+)$/.exec(spec);
  assert.ok(m?.[2], `bad row spec ${spec}`);
  const mods = m[1] ?? '';
  const key = m[2] === 'SP' ? ' ' : m[2];
  return {
    key,
    ctrl: mods.includes('Ctrl+'),
    alt: mods.includes('Alt+'),
    shift: mods.includes('Shift+'),
  };
}

const TOKENS: Record<string, string> = { CSI: '\x1b[', SS3: '\x1bO', ESC: '\x1b', SP: ' ' };
/** "CSI 1;5A", "ESC ^A", "SS3 P": tokens joined; ^X is caret notation (^? is DEL), else literal. */
function parseBytes(tokens: readonly string[]): string {
  return tokens
    .map((t) => TOKENS[t] ?? (/^\^.$/.test(t) ? String.fromCharCode(t.charCodeAt(1) ^ 0x40) : t))
    .join('');
}

/**
 * One row per "spec  bytes" pair; pairs on a line are separated by " | ". A row "spec refused
 * words" expects a refusal whose reason contains the words.
 */
function rows(label: string, modes: KeyModes, table: string): void {
  describe(label, () => {
    const pairs = table
      .split(/\n| \| /)
      .map((r) => r.trim().split(/\s+/))
      .filter((r) => r[0]);
    for (const [spec = '', ...rest] of pairs) {
      it(`${spec} → ${rest.join(' ')}`, () => {
        const result = encodeKey(parseSpec(spec), modes);
        if (rest[0] === 'refused') {
          assert.equal(result.ok, false, `expected a refusal, got ${JSON.stringify(result)}`);
          if (!result.ok) assert.ok(result.reason.includes(rest.slice(1).join(' ')), result.reason);
        } else {
          assert.deepEqual(result, { ok: true, bytes: parseBytes(rest) });
        }
      });
    }
  });
}

const L = LEGACY_MODES;
const DECCKM: KeyModes = { ...L, applicationCursorKeys: true };
const DECKPAM: KeyModes = { ...L, applicationKeypad: true };
const mok = (level: number): KeyModes => ({ ...L, modifyOtherKeys: level });
const kitty = (flags: number, decckm = false): KeyModes => ({
  ...L,
  applicationCursorKeys: decckm,
  kittyKeyboardFlags: flags,
});

rows(
  'legacy named and printable keys',
  L,
  `
  Enter ^M          | Tab ^I            | Shift+Tab CSI Z       | Backspace ^?
  Ctrl+Backspace ^H | Escape ESC        | Space SP              | SP SP
  Ctrl+Space ^@     | Ctrl+SP ^@        | a a                   | A A
  Shift+a A         | Shift+A A         | ~ ~                   | 1 1
`,
);

rows(
  'legacy cursor keys, normal mode',
  L,
  `
  Up CSI A             | Down CSI B             | Right CSI C           | Left CSI D
  Home CSI H           | End CSI F              | Shift+Up CSI 1;2A     | Alt+Down CSI 1;3B
  Alt+Shift+Right CSI 1;4C | Ctrl+Left CSI 1;5D | Ctrl+Shift+Home CSI 1;6H
  Ctrl+Alt+End CSI 1;7F    | Ctrl+Alt+Shift+Up CSI 1;8A
`,
);

rows(
  'legacy cursor keys, application cursor mode (DECCKM)',
  DECCKM,
  `
  Up SS3 A             | Down SS3 B             | Right SS3 C           | Left SS3 D
  Home SS3 H           | End SS3 F              | Shift+Up CSI 1;2A     | Ctrl+Left CSI 1;5D
  Alt+Home CSI 1;3H    | Ctrl+Alt+Shift+End CSI 1;8F | F1 SS3 P         | Insert CSI 2~
`,
);

rows(
  'legacy tilde keys and F1-F12',
  L,
  `
  Insert CSI 2~        | Delete CSI 3~          | PageUp CSI 5~         | PageDown CSI 6~
  F5 CSI 15~           | F6 CSI 17~             | F7 CSI 18~            | F8 CSI 19~
  F9 CSI 20~           | F10 CSI 21~            | F11 CSI 23~           | F12 CSI 24~
  Shift+Insert CSI 2;2~ | Ctrl+Delete CSI 3;5~  | Alt+PageUp CSI 5;3~   | Ctrl+Shift+PageDown CSI 6;6~
  Ctrl+F5 CSI 15;5~    | Shift+F12 CSI 24;2~    | Ctrl+Alt+Shift+F8 CSI 19;8~
  F1 SS3 P             | F2 SS3 Q               | F3 SS3 R              | F4 SS3 S
  Shift+F1 CSI 1;2P    | Ctrl+F2 CSI 1;5Q       | Alt+F3 CSI 1;3R       | Ctrl+Shift+F4 CSI 1;6S
`,
);

rows(
  'keypad, numeric mode',
  L,
  `
  Keypad0 0 | Keypad1 1 | Keypad5 5 | Keypad9 9 | KeypadDecimal . | KeypadDivide /
  KeypadMultiply * | KeypadSubtract - | KeypadAdd + | KeypadEnter ^M | KeypadEqual =
`,
);

rows(
  'keypad, application mode (DECKPAM)',
  DECKPAM,
  `
  Keypad0 SS3 p        | Keypad1 SS3 q          | Keypad5 SS3 u         | Keypad9 SS3 y
  KeypadDecimal SS3 n  | KeypadDivide SS3 o     | KeypadMultiply SS3 j  | KeypadSubtract SS3 m
  KeypadAdd SS3 k      | KeypadEnter SS3 M      | KeypadEqual SS3 X     | Up CSI A
`,
);

rows(
  'legacy Ctrl: letters (either case) and symbols to C0',
  L,
  `
  Ctrl+a ^A | Ctrl+c ^C | Ctrl+h ^H | Ctrl+i ^I | Ctrl+j ^J | Ctrl+m ^M | Ctrl+z ^Z
  Ctrl+A ^A | Ctrl+Z ^Z | Ctrl+@ ^@ | Ctrl+[ ^[ | Ctrl+\\ ^\\ | Ctrl+] ^] | Ctrl+^ ^^
  Ctrl+_ ^_ | Ctrl+? ^? | Ctrl+~ ^^ | Ctrl+/ ^_ | Ctrl+2 ^@ | Ctrl+3 ^[ | Ctrl+4 ^\\
  Ctrl+5 ^] | Ctrl+6 ^^ | Ctrl+7 ^_ | Ctrl+8 ^?
`,
);

rows(
  'legacy Alt: an ESC prefix',
  L,
  `
  Alt+x ESC x            | Alt+X ESC X              | Alt+Shift+x ESC X     | Alt+Ctrl+a ESC ^A
  Alt+Enter ESC ^M       | Alt+Backspace ESC ^?     | Ctrl+Alt+Backspace ESC ^H
  Alt+Tab ESC ^I         | Alt+Shift+Tab ESC CSI Z  | Alt+Escape ESC ESC    | Alt+Space ESC SP
  Ctrl+Alt+Space ESC ^@  | Alt+[ ESC [              | Alt+Up CSI 1;3A
`,
);

rows(
  'legacy refusals',
  L,
  `
  Shift+Enter refused Shift+Enter has no legacy encoding (it would arrive as Enter)
  Ctrl+Enter refused Ctrl+Enter has no legacy encoding
  Ctrl+Tab refused it would arrive as Tab
  Shift+Escape refused it would arrive as Escape
  Ctrl+Escape refused sent only when the program enables the kitty keyboard protocol or xterm's modifyOtherKeys
  Shift+Backspace refused it would arrive as Backspace
  Ctrl+Shift+a refused it would arrive as Ctrl+a
  Shift+1 refused Shift applies to letters only; send the shifted character itself instead
  Shift+Space refused it would arrive as Space
  Ctrl+1 refused Ctrl+1 has no legacy encoding
  Ctrl+Keypad1 refused keypad keys take modifiers only in the kitty protocol
  Shift+KeypadEnter refused keypad keys | Alt+Keypad5 refused keypad keys
  enter refused "enter" is not a key name or a printable ASCII character
  é refused not a key name | ab refused not a key name | ^A refused not a key name
`,
);

rows(
  'modifyOtherKeys level 1: CSI 27 only where legacy has nothing',
  mok(1),
  `
  Shift+Enter CSI 27;2;13~   | Ctrl+Enter CSI 27;5;13~   | Ctrl+Tab CSI 27;5;9~
  Shift+Escape CSI 27;2;27~  | Ctrl+Escape CSI 27;5;27~  | Ctrl+Shift+a CSI 27;6;65~
  Shift+SP CSI 27;2;32~      | Alt+Shift+Enter CSI 27;4;13~ | Shift+Backspace CSI 27;2;127~
  Ctrl+a ^A | Alt+a ESC a | Shift+Tab CSI Z | Ctrl+Backspace ^H | Enter ^M | Ctrl+Space ^@
  Up CSI A  | Ctrl+F5 CSI 15;5~ | a a | Ctrl+Keypad1 refused keypad keys
`,
);

rows(
  'modifyOtherKeys level 2: CSI 27 for every Ctrl or Alt',
  mok(2),
  `
  Ctrl+a CSI 27;5;97~        | Alt+a CSI 27;3;97~        | Ctrl+Alt+a CSI 27;7;97~
  Ctrl+Shift+a CSI 27;6;65~  | Ctrl+Space CSI 27;5;32~   | Ctrl+[ CSI 27;5;91~
  Shift+Enter CSI 27;2;13~   | Ctrl+Enter CSI 27;5;13~   | Alt+Enter CSI 27;3;13~
  Ctrl+Tab CSI 27;5;9~       | Ctrl+Backspace CSI 27;5;127~ | Shift+Escape CSI 27;2;27~
  a a | Shift+a A | Enter ^M | Shift+Tab CSI Z | Ctrl+Up CSI 1;5A
`,
);

rows(
  'kitty flag 1: disambiguate',
  kitty(1),
  `
  Escape CSI 27u             | Enter ^M                  | Tab ^I              | Backspace ^?
  Space SP                   | Shift+Enter CSI 13;2u     | Ctrl+Enter CSI 13;5u
  Alt+Enter CSI 13;3u        | Ctrl+Tab CSI 9;5u         | Shift+Tab CSI 9;2u
  Ctrl+Shift+Tab CSI 9;6u    | Ctrl+Backspace CSI 127;5u | Shift+Escape CSI 27;2u
  Ctrl+Space CSI 32;5u       | Shift+Space SP            | a a | Shift+a A | A A
  Ctrl+a CSI 97;5u           | Ctrl+A CSI 97;6u          | Alt+a CSI 97;3u
  Ctrl+Shift+a CSI 97;6u     | Ctrl+Alt+a CSI 97;7u      | Alt+Shift+a CSI 97;4u
  Ctrl+1 CSI 49;5u           | Ctrl+[ CSI 91;5u          | Alt+[ CSI 91;3u     | 1 1
  Shift+1 refused Shift applies to letters only
  Up CSI A                   | Ctrl+Up CSI 1;5A          | Home CSI H          | Shift+End CSI 1;2F
  F1 CSI P                   | Shift+F1 CSI 1;2P         | F3 CSI 13~          | Ctrl+F3 CSI 13;5~
  F4 CSI S                   | F5 CSI 15~                | Ctrl+Delete CSI 3;5~
  Keypad1 1                  | KeypadAdd +               | KeypadEnter CSI 57414u
  Ctrl+Keypad1 CSI 57400;5u  | Shift+KeypadEnter CSI 57414;2u
`,
);

rows('kitty flag 1 ignores DECCKM', kitty(1, true), `Up CSI A | End CSI F | F2 CSI Q`);

rows(
  'kitty flags 1|4: alternate keys',
  kitty(5),
  `
  Ctrl+Shift+a CSI 97:65;6u  | Alt+Shift+a CSI 97:65;4u  | Ctrl+Shift+A CSI 97:65;6u
  Shift+a A | Ctrl+a CSI 97;5u | Shift+Enter CSI 13;2u | Ctrl+Shift+1 CSI 49;6u
`,
);

rows(
  'kitty flag 4 alone keeps the legacy bytes',
  kitty(4, true),
  `
  Ctrl+Shift+a CSI 97:65;6u | Ctrl+a ^A | Escape ESC | Up SS3 A | Shift+Enter CSI 13;2u
`,
);

rows(
  'kitty flag 8: all keys as escapes',
  kitty(8),
  `
  a CSI 97u          | A CSI 97;2u        | Shift+a CSI 97;2u     | 1 CSI 49u
  Shift+1 CSI 49;2u  | Enter CSI 13u      | Tab CSI 9u            | Backspace CSI 127u
  Escape CSI 27u     | Space CSI 32u      | Ctrl+a CSI 97;5u      | Up CSI A
  Keypad1 CSI 49u    | KeypadEnter CSI 13u
`,
);

rows(
  'kitty flags 8|16: associated text',
  kitty(24),
  `
  a CSI 97;;97u          | Shift+a CSI 97;2;65u    | A CSI 97;2;65u       | Space CSI 32;;32u
  Shift+Space CSI 32;2;32u | 1 CSI 49;;49u         | Alt+a CSI 97;3u      | Ctrl+a CSI 97;5u
  Enter CSI 13u          | Keypad1 CSI 49;;49u     | KeypadEnter CSI 13u  | Ctrl+Keypad1 CSI 49;5u
`,
);

rows(
  'kitty flags 31: everything',
  kitty(31),
  `
  Shift+a CSI 97:65;2;65u | Ctrl+Shift+a CSI 97:65;6u | a CSI 97;;97u
`,
);

describe('refusals carry no bytes', () => {
  it('a refusal has only ok and reason', () => {
    const result = encodeKey(parseSpec('Shift+Enter'), L);
    assert.deepEqual(Object.keys(result).sort(), ['ok', 'reason']);
  });
});
