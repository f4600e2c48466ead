/**
 * The key vocabulary of `terminal_input`: named keys, single printable ASCII characters, and the
 * modifiers Ctrl, Alt and Shift. Names are case-sensitive. Pure; spec/keys.md is the reference.
 */

export const MODIFIERS = ['Ctrl', 'Alt', 'Shift'] as const;
export type Modifier = (typeof MODIFIERS)[number];

export const NAMED_KEYS = [
  'Enter',
  'Tab',
  'Backspace',
  'Escape',
  'Space',
  'Up',
  'Down',
  'Left',
  'Right',
  'Home',
  'End',
  'PageUp',
  'PageDown',
  'Insert',
  'Delete',
  'F1',
  'F2',
  'F3',
  'F4',
  'F5',
  'F6',
  'F7',
  'F8',
  'F9',
  'F10',
  'F11',
  'F12',
  'Keypad0',
  'Keypad1',
  'Keypad2',
  'Keypad3',
  'Keypad4',
  'Keypad5',
  'Keypad6',
  'Keypad7',
  'Keypad8',
  'Keypad9',
  'KeypadDecimal',
  'KeypadDivide',
  'KeypadMultiply',
  'KeypadSubtract',
  'KeypadAdd',
  'KeypadEnter',
  'KeypadEqual',
] as const;
export type NamedKey = (typeof NAMED_KEYS)[number];

const NAMED = new Set<string>(NAMED_KEYS);

export interface KeyPress {
  /** A named key, or one printable ASCII character (0x20-0x7e). */
  readonly key: string;
  readonly ctrl: boolean;
  readonly alt: boolean;
  readonly shift: boolean;
}

export function isNamedKey(key: string): key is NamedKey {
  return NAMED.has(key);
}

export function isPrintableKey(key: string): boolean {
  if (key.length !== 1) return false;
  const code = key.charCodeAt(0);
  return code >= 0x20 && code <= 0x7e;
}

/** xterm's modifier parameter: 1 + Shift(1) + Alt(2) + Ctrl(4). */
export function modifierParam(press: KeyPress): number {
  return 1 + (press.shift ? 1 : 0) + (press.alt ? 2 : 0) + (press.ctrl ? 4 : 0);
}

export function hasModifiers(press: KeyPress): boolean {
  return press.ctrl || press.alt || press.shift;
}

/** "Ctrl+Shift+Enter": how errors and docs name a combination. */
export function describeKey(press: KeyPress): string {
  const parts: string[] = [];
  if (press.ctrl) parts.push('Ctrl');
  if (press.alt) parts.push('Alt');
  if (press.shift) parts.push('Shift');
  parts.push(press.key === ' ' ? 'Space' : press.key);
  return parts.join('+');
}
