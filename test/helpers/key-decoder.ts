/**
 * Test-side decoders, written from the specs and independent of src/input: key bytes (legacy
 * VT220/xterm, xterm modifyOtherKeys, kitty CSI u) back to a key press, and mouse reports (X10
 * default, UTF-8, SGR, urxvt) back to a report. Each returns undefined for bytes it cannot parse.
 * @see https://invisible-island.net/xterm/ctlseqs/ctlseqs.html
 * @see https://sw.kovidgoyal.net/kitty/keyboard-protocol/
 */
import type { MouseButton, WheelDirection } from '../../src/input/encode-mouse.js';
import type { KeyPress } from '../../src/input/keys.js';
import type { MouseEncoding } from '../../src/screen/terminal-modes.js';

export interface DecodedKey extends KeyPress {
  /** Kitty associated text (flag 16), when present. */
  readonly text?: string;
  /** Kitty shifted alternate key (flag 4), when present. */
  readonly shiftedKey?: string;
}

const ESC = '\x1b';
const CSI = '\x1b[';
const SS3 = '\x1bO';
const CSI_FINALS: Record<string, string> = {
  A: 'Up',
  B: 'Down',
  C: 'Right',
  D: 'Left',
  H: 'Home',
  F: 'End',
  P: 'F1',
  Q: 'F2',
  R: 'F3',
  S: 'F4',
};
const KEYPAD_NAMES = [
  ...Array.from({ length: 10 }, (_, i) => `Keypad${i}`),
  'KeypadDecimal',
  'KeypadDivide',
  'KeypadMultiply',
  'KeypadSubtract',
  'KeypadAdd',
  'KeypadEnter',
  'KeypadEqual',
];
/** DECKPAM SS3 finals in the order of KEYPAD_NAMES. */
const KEYPAD_SS3 = 'pqrstuvwxynojmkMX';
const TILDE: Record<number, string> = {
  2: 'Insert',
  3: 'Delete',
  5: 'PageUp',
  6: 'PageDown',
  13: 'F3',
  15: 'F5',
  17: 'F6',
  18: 'F7',
  19: 'F8',
  20: 'F9',
  21: 'F10',
  23: 'F11',
  24: 'F12',
};
/** Code points that name a key rather than a character (modifyOtherKeys and kitty). */
const CODE_KEYS: Record<number, string> = { 13: 'Enter', 9: 'Tab', 127: 'Backspace', 27: 'Escape' };
/** Single C0 bytes with their own key; the rest decode as Ctrl + the character at byte | 0x40. */
const C0_KEYS: Record<number, string> = { 9: 'Tab', 13: 'Enter', 27: 'Escape' };

const press = (key: string, mods = 1): KeyPress => ({
  key,
  shift: ((mods - 1) & 1) !== 0,
  alt: ((mods - 1) & 2) !== 0,
  ctrl: ((mods - 1) & 4) !== 0,
});

function keyOfCode(code: number): string {
  const k = KEYPAD_NAMES[code - 57399];
  if (code >= 57399 && k) return k;
  return CODE_KEYS[code] ?? String.fromCodePoint(code);
}

/** Decodes the bytes of one key press. */
export function decodeKey(bytes: string): DecodedKey | undefined {
  if (bytes.length === 1) return decodeChar(bytes.charCodeAt(0));
  if (bytes.startsWith(SS3) && bytes.length === 3) {
    const final = bytes.charAt(2);
    const name = CSI_FINALS[final] ?? KEYPAD_NAMES[KEYPAD_SS3.indexOf(final)];
    return name ? press(name) : undefined;
  }
  const csi = bytes.startsWith(CSI) ? decodeCsi(bytes.slice(CSI.length)) : undefined;
  if (csi) return csi;
  if (bytes.startsWith(ESC) && bytes.length > 1) {
    const rest = decodeKey(bytes.slice(1));
    if (!rest || rest.alt) return undefined;
    return { key: rest.key, ctrl: rest.ctrl, alt: true, shift: rest.shift };
  }
  return undefined;
}

/** The part of a CSI sequence after ESC [: letter and tilde keys, modifyOtherKeys, kitty CSI u. */
function decodeCsi(body: string): DecodedKey | undefined {
  if (body === 'Z') return press('Tab', 2);
  let m = /^(?:1;(\d+))?([ABCDHFPQRS])$/.exec(body);
  if (m?.[2]) return press(CSI_FINALS[m[2]] as string, Number(m[1] ?? 1));
  m = /^27;(\d+);(\d+)~$/.exec(body);
  if (m) return press(keyOfCode(Number(m[2])), Number(m[1]));
  m = /^(\d+)(?:;(\d+))?~$/.exec(body);
  if (m) {
    const name = TILDE[Number(m[1])];
    return name ? press(name, Number(m[2] ?? 1)) : undefined;
  }
  m = /^(\d+)(?::(\d*))?(?::\d+)?(?:;(\d*)(?:;([\d:]+))?)?u$/.exec(body);
  return m ? decodeKitty(m) : undefined;
}

function decodeKitty(m: RegExpExecArray): DecodedKey {
  const base = press(keyOfCode(Number(m[1])), Number(m[3] || 1));
  const extra: { text?: string; shiftedKey?: string } = {};
  if (m[2]) extra.shiftedKey = String.fromCodePoint(Number(m[2]));
  if (m[4]) extra.text = String.fromCodePoint(...m[4].split(':').map(Number));
  return { ...base, ...extra };
}

function decodeChar(code: number): KeyPress | undefined {
  if (code === 0x7f) return press('Backspace');
  if (code === 0x00) return press(' ', 5);
  const named = C0_KEYS[code];
  if (named) return press(named);
  if (code < 0x20) return press(String.fromCharCode(code | 0x40).toLowerCase(), 5);
  if (code < 0x7f) return press(String.fromCharCode(code));
  return undefined;
}

export interface DecodedMouse {
  readonly kind: 'press' | 'release' | 'wheel';
  /** Absent for wheel events and for legacy releases, which do not say which button. */
  readonly button?: MouseButton;
  readonly direction?: WheelDirection;
  readonly row: number;
  readonly column: number;
  readonly ctrl: boolean;
  readonly alt: boolean;
  readonly shift: boolean;
}

const BUTTONS: readonly MouseButton[] = ['left', 'middle', 'right'];
const WHEEL: readonly WheelDirection[] = ['up', 'down', 'left', 'right'];

/** Decodes one mouse report in the given coordinate encoding. */
export function decodeMouse(
  bytes: Uint8Array,
  encoding: Exclude<MouseEncoding, 'sgr-pixels'>,
): DecodedMouse | undefined {
  const latin1 = Buffer.from(bytes).toString('latin1');
  if (!latin1.startsWith(CSI)) return undefined;
  const body = latin1.slice(CSI.length);
  if (encoding === 'sgr') {
    const m = /^<(\d+);(\d+);(\d+)([Mm])$/.exec(body);
    return m ? fromCode(Number(m[1]), Number(m[2]), Number(m[3]), m[4] === 'm') : undefined;
  }
  if (encoding === 'urxvt') {
    const m = /^(\d+);(\d+);(\d+)M$/.exec(body);
    return m ? fromCode(Number(m[1]) - 32, Number(m[2]), Number(m[3]), false) : undefined;
  }
  if (!body.startsWith('M')) return undefined;
  const payload = bytes.subarray(3);
  let values: number[];
  if (encoding === 'utf8') {
    const text = Buffer.from(payload).toString('utf8');
    if (text.includes('\ufffd')) return undefined;
    values = Array.from(text, (c) => c.codePointAt(0) as number);
  } else {
    values = Array.from(payload);
  }
  const [cb, cx, cy] = values;
  if (values.length !== 3 || cb === undefined || cx === undefined || cy === undefined) {
    return undefined;
  }
  return fromCode(cb - 32, cx - 32, cy - 32, false);
}

function fromCode(code: number, column: number, row: number, sgrRelease: boolean): DecodedMouse {
  const mods = { shift: (code & 4) !== 0, alt: (code & 8) !== 0, ctrl: (code & 16) !== 0 };
  const low = code & 3;
  if (code & 64)
    return { kind: 'wheel', direction: WHEEL[low] as WheelDirection, row, column, ...mods };
  if (sgrRelease)
    return { kind: 'release', button: BUTTONS[low] as MouseButton, row, column, ...mods };
  if (low === 3) return { kind: 'release', row, column, ...mods };
  return { kind: 'press', button: BUTTONS[low] as MouseButton, row, column, ...mods };
}
