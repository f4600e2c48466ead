/**
 * encodeKey(press, modes): the bytes xterm would send for a key press, in the keyboard protocol
 * the program selected: legacy (with DECCKM and DECKPAM), xterm's modifyOtherKeys, or the kitty
 * keyboard protocol. Tables plus a small builder per protocol; pure. A combination a protocol
 * cannot express is refused with the reason, never sent ambiguously.
 * @see spec/keys.md
 * @see https://invisible-island.net/xterm/ctlseqs/ctlseqs.html (PC-Style Function Keys)
 * @see https://sw.kovidgoyal.net/kitty/keyboard-protocol/
 */
import {
  describeKey,
  hasModifiers,
  isNamedKey,
  isPrintableKey,
  type KeyPress,
  modifierParam,
} from './keys.js';

export interface KeyModes {
  readonly applicationCursorKeys: boolean;
  readonly applicationKeypad: boolean;
  readonly kittyKeyboardFlags: number;
  readonly modifyOtherKeys: number;
}

export type KeyEncoding =
  | { readonly ok: true; readonly bytes: string }
  | { readonly ok: false; readonly reason: string };

export const LEGACY_MODES: KeyModes = Object.freeze({
  applicationCursorKeys: false,
  applicationKeypad: false,
  kittyKeyboardFlags: 0,
  modifyOtherKeys: 0,
});

const ESC = '\x1b';
const CSI = '\x1b[';
const SS3 = '\x1bO';

/** Kitty keyboard protocol flags. */
export const KITTY = {
  disambiguate: 1,
  eventTypes: 2,
  alternateKeys: 4,
  allKeysAsEscapes: 8,
  associatedText: 16,
} as const;

/** Keys sent as CSI/SS3 + final letter: arrows, Home, End, F1-F4. */
const LETTER_KEYS: Record<string, { final: string; cursor: boolean }> = {
  Up: { final: 'A', cursor: true },
  Down: { final: 'B', cursor: true },
  Right: { final: 'C', cursor: true },
  Left: { final: 'D', cursor: true },
  Home: { final: 'H', cursor: true },
  End: { final: 'F', cursor: true },
  F1: { final: 'P', cursor: false },
  F2: { final: 'Q', cursor: false },
  F3: { final: 'R', cursor: false },
  F4: { final: 'S', cursor: false },
};

/** Keys sent as CSI number ~. */
const TILDE_KEYS: Record<string, number> = {
  Insert: 2,
  Delete: 3,
  PageUp: 5,
  PageDown: 6,
  F5: 15,
  F6: 17,
  F7: 18,
  F8: 19,
  F9: 20,
  F10: 21,
  F11: 23,
  F12: 24,
};

/** Keypad keys: the text they type, their DECKPAM SS3 final, their kitty code. */
const KEYPAD_KEYS: Record<string, { text: string; app: string; kitty: number }> = {
  Keypad0: { text: '0', app: 'p', kitty: 57399 },
  Keypad1: { text: '1', app: 'q', kitty: 57400 },
  Keypad2: { text: '2', app: 'r', kitty: 57401 },
  Keypad3: { text: '3', app: 's', kitty: 57402 },
  Keypad4: { text: '4', app: 't', kitty: 57403 },
  Keypad5: { text: '5', app: 'u', kitty: 57404 },
  Keypad6: { text: '6', app: 'v', kitty: 57405 },
  Keypad7: { text: '7', app: 'w', kitty: 57406 },
  Keypad8: { text: '8', app: 'x', kitty: 57407 },
  Keypad9: { text: '9', app: 'y', kitty: 57408 },
  KeypadDecimal: { text: '.', app: 'n', kitty: 57409 },
  KeypadDivide: { text: '/', app: 'o', kitty: 57410 },
  KeypadMultiply: { text: '*', app: 'j', kitty: 57411 },
  KeypadSubtract: { text: '-', app: 'm', kitty: 57412 },
  KeypadAdd: { text: '+', app: 'k', kitty: 57413 },
  KeypadEnter: { text: '\r', app: 'M', kitty: 57414 },
  KeypadEqual: { text: '=', app: 'X', kitty: 57415 },
};

/** Keys that behave like characters: their code point in the kitty and modifyOtherKeys forms. */
const CHAR_KEYS: Record<string, number> = {
  Enter: 13,
  Tab: 9,
  Backspace: 127,
  Escape: 27,
  Space: 32,
};

/** Ctrl + character → C0 byte (letters are handled arithmetically). */
const CTRL_SYMBOLS: Record<string, number> = {
  ' ': 0x00,
  '@': 0x00,
  '2': 0x00,
  '[': 0x1b,
  '3': 0x1b,
  '\\': 0x1c,
  '4': 0x1c,
  ']': 0x1d,
  '5': 0x1d,
  '^': 0x1e,
  '6': 0x1e,
  '~': 0x1e,
  _: 0x1f,
  '7': 0x1f,
  '/': 0x1f,
  '?': 0x7f,
  '8': 0x7f,
};

const ok = (bytes: string): KeyEncoding => ({ ok: true, bytes });
const refuse = (reason: string): KeyEncoding => ({ ok: false, reason });

// One character only: "Enter" would otherwise compare as between "A" and "Z".
const isLetter = (c: string) =>
  c.length === 1 && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));

/** Encodes one key press for the program's current keyboard modes. */
export function encodeKey(press: KeyPress, modes: KeyModes): KeyEncoding {
  if (!isNamedKey(press.key) && !isPrintableKey(press.key)) {
    return refuse(`"${press.key}" is not a key name or a printable ASCII character`);
  }
  const kitty = modes.kittyKeyboardFlags & 0x1f;
  if (kitty) {
    // Only disambiguate reports modified keypad keys as keys of their own; otherwise a keypad
    // key is the key it types.
    const keypad = KEYPAD_KEYS[press.key];
    const p =
      keypad &&
      !(kitty & KITTY.disambiguate) &&
      (hasModifiers(press) || kitty & KITTY.allKeysAsEscapes)
        ? { ...press, key: keypad.text === '\r' ? 'Enter' : keypad.text }
        : press;
    // Without disambiguate or all-keys, kitty keeps the legacy bytes (Escape stays ESC, Ctrl+a
    // stays ^A) and uses CSI u only for what legacy cannot express. Event types (flag 2) only add
    // repeat and release events, which agent-tty never sends.
    if (!(kitty & (KITTY.disambiguate | KITTY.allKeysAsEscapes))) {
      const legacy = encodeLegacy(p, modes);
      if (legacy.ok) return legacy;
    }
    return encodeKitty(p, modes);
  }
  const legacy = encodeLegacy(press, modes);
  if (modes.modifyOtherKeys > 0 && isCharLike(press.key)) {
    const wantsExtended = modes.modifyOtherKeys >= 2 ? press.ctrl || press.alt : !legacy.ok;
    if (wantsExtended || (!legacy.ok && hasModifiers(press))) {
      // xterm reports an upper-case letter as the letter with Shift.
      const p = upperAsShift(press);
      return ok(`${CSI}27;${modifierParam(p)};${otherKeysCode(p)}~`);
    }
  }
  if (!legacy.ok && hasModifiers(press) && isCharLike(press.key)) {
    return refuse(
      `${legacy.reason}; ${describeKey(press)} is sent only when the program enables the kitty ` +
        `keyboard protocol or xterm's modifyOtherKeys`,
    );
  }
  return legacy;
}

function isCharLike(key: string): boolean {
  return key in CHAR_KEYS || isPrintableKey(key);
}

/** The legacy (VT220/xterm) encoding, honouring DECCKM and DECKPAM. */
function encodeLegacy(press: KeyPress, modes: KeyModes): KeyEncoding {
  const m = modifierParam(press);
  const letter = LETTER_KEYS[press.key];
  if (letter) {
    if (m > 1) return ok(`${CSI}1;${m}${letter.final}`);
    const ss3 = letter.cursor ? modes.applicationCursorKeys : true;
    return ok(`${ss3 ? SS3 : CSI}${letter.final}`);
  }
  const tilde = TILDE_KEYS[press.key];
  if (tilde !== undefined) return ok(m > 1 ? `${CSI}${tilde};${m}~` : `${CSI}${tilde}~`);
  const keypad = KEYPAD_KEYS[press.key];
  if (keypad) {
    if (hasModifiers(press)) {
      return refuse(`${describeKey(press)}: keypad keys take modifiers only in the kitty protocol`);
    }
    return ok(modes.applicationKeypad ? `${SS3}${keypad.app}` : keypad.text);
  }
  const base = legacyUnmetaed(press);
  if (!base.ok) return base;
  return ok(press.alt ? ESC + base.bytes : base.bytes);
}

/** The legacy bytes of a press, ignoring Alt (which adds an ESC prefix). */
function legacyUnmetaed(press: KeyPress): KeyEncoding {
  const name = describeKey(press);
  const { ctrl, shift } = press;
  switch (press.key) {
    case 'Enter':
      return ctrl || shift
        ? refuse(`${name} has no legacy encoding (it would arrive as Enter)`)
        : ok('\r');
    case 'Tab':
      if (ctrl) return refuse(`${name} has no legacy encoding (it would arrive as Tab)`);
      return ok(shift ? `${CSI}Z` : '\t');
    case 'Backspace':
      if (shift) return refuse(`${name} has no legacy encoding (it would arrive as Backspace)`);
      return ok(ctrl ? '\x08' : '\x7f');
    case 'Escape':
      return ctrl || shift
        ? refuse(`${name} has no legacy encoding (it would arrive as Escape)`)
        : ok(ESC);
    case 'Space':
      return legacyChar(' ', press);
    default:
      return legacyChar(press.key, press);
  }
}

function legacyChar(char: string, press: KeyPress): KeyEncoding {
  const name = describeKey(press);
  if (press.shift && !isLetter(char)) {
    return refuse(
      char === ' '
        ? `${name} has no legacy encoding (it would arrive as Space)`
        : `${name}: Shift applies to letters only; send the shifted character itself instead`,
    );
  }
  if (press.ctrl) {
    if (press.shift)
      return refuse(
        `${name} has no legacy encoding (it would arrive as Ctrl+${char.toLowerCase()})`,
      );
    if (isLetter(char)) return ok(String.fromCharCode(char.toUpperCase().charCodeAt(0) & 0x1f));
    const c0 = CTRL_SYMBOLS[char];
    if (c0 === undefined) return refuse(`${name} has no legacy encoding`);
    return ok(String.fromCharCode(c0));
  }
  return ok(press.shift ? char.toUpperCase() : char);
}

/** The code point modifyOtherKeys reports: the character the key types, Shift applied. */
function otherKeysCode(press: KeyPress): number {
  const named = CHAR_KEYS[press.key];
  if (named !== undefined) return named;
  const char = press.shift && isLetter(press.key) ? press.key.toUpperCase() : press.key;
  return char.charCodeAt(0);
}

/** The kitty keyboard protocol for the given progressive-enhancement flags. */
function encodeKitty(given: KeyPress, modes: KeyModes): KeyEncoding {
  // An upper-case letter is its key with Shift held: kitty reports the base key.
  const press = upperAsShift(given);
  const flags = modes.kittyKeyboardFlags;
  const allKeys = (flags & KITTY.allKeysAsEscapes) !== 0;
  const m = modifierParam(press);
  const mods = m > 1 ? `;${m}` : '';
  const letter = LETTER_KEYS[press.key];
  if (press.key === 'F3') return ok(`${CSI}13${mods}~`);
  if (letter) return ok(m > 1 ? `${CSI}1;${m}${letter.final}` : `${CSI}${letter.final}`);
  const tilde = TILDE_KEYS[press.key];
  if (tilde !== undefined) return ok(`${CSI}${tilde}${mods}~`);
  const keypad = KEYPAD_KEYS[press.key];
  if (keypad && !(flags & KITTY.disambiguate)) {
    // Only disambiguate reports keypad keys as their own: otherwise they are the keys they type.
    return encodeKitty({ ...press, key: keypad.text === '\r' ? 'Enter' : keypad.text }, modes);
  }
  if (keypad) {
    // KeypadEnter types no text, so disambiguate reports it as its own key like other non-text keys.
    const typesText = !hasModifiers(press) && keypad.text !== '\r';
    if (typesText && !allKeys) return ok(keypad.text);
    return ok(
      csiU(`${keypad.kitty}`, m, typesText && flags & KITTY.associatedText ? keypad.text : ''),
    );
  }
  const named = CHAR_KEYS[press.key];
  if (named !== undefined && press.key !== 'Space') {
    if (m === 1 && !allKeys && press.key !== 'Escape') return ok(String.fromCharCode(named));
    return ok(`${CSI}${named}${mods}u`);
  }
  const char = press.key === 'Space' ? ' ' : press.key;
  const base = isLetter(char) ? char.toLowerCase() : char;
  const shifted =
    !press.shift || char === ' ' ? char : isLetter(char) ? char.toUpperCase() : undefined;
  const typesText = !press.ctrl && !press.alt;
  if (typesText && !allKeys) {
    if (shifted === undefined)
      return refuse(
        `${describeKey(press)}: Shift applies to letters only; send the shifted character itself instead`,
      );
    return ok(shifted);
  }
  let code = `${base.charCodeAt(0)}`;
  if (flags & KITTY.alternateKeys && press.shift && shifted !== undefined && shifted !== base) {
    code += `:${shifted.charCodeAt(0)}`;
  }
  const text = allKeys && flags & KITTY.associatedText && typesText ? (shifted ?? '') : '';
  return ok(csiU(code, m, text));
}

/** An upper-case letter key as its lower-case key with Shift held. */
function upperAsShift(press: KeyPress): KeyPress {
  return isLetter(press.key) && press.key !== press.key.toLowerCase()
    ? { ...press, key: press.key.toLowerCase(), shift: true }
    : press;
}

/** CSI code ; modifiers ; text u. With text, no modifiers leave the field empty, as kitty sends. */
function csiU(code: string, m: number, text: string): string {
  if (!text) return `${CSI}${code}${m > 1 ? `;${m}` : ''}u`;
  return `${CSI}${code};${m > 1 ? m : ''};${text.charCodeAt(0)}u`;
}
