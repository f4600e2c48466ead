/**
 * Text and paste payloads. Text is sent as UTF-8, exactly. A paste has its line endings
 * normalised to CR, as a terminal does when you paste, and is wrapped in bracketed-paste markers
 * when the program enabled mode 2004; an end marker inside the pasted text is removed so the
 * paste cannot end early and run what follows. Pure.
 */

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

export function encodeText(text: string): Uint8Array {
  return Buffer.from(text, 'utf8');
}

export function encodePaste(text: string, bracketed: boolean): Uint8Array {
  const normalised = text.replace(/\r\n|\n/g, '\r');
  if (!bracketed) return Buffer.from(normalised, 'utf8');
  // Repeat: removing one marker can join its neighbours into another ("\x1b[20" + marker + "1~").
  let inner = normalised;
  while (inner.includes(PASTE_END)) inner = inner.split(PASTE_END).join('');
  return Buffer.from(PASTE_START + inner + PASTE_END, 'utf8');
}

export function encodeFocus(focused: boolean): Uint8Array {
  return Buffer.from(focused ? '\x1b[I' : '\x1b[O', 'latin1');
}
