/**
 * Makes screen text safe to show to whoever reads a result: control characters, bidirectional
 * overrides and invisible format characters could hide or reorder what a program printed, so
 * each is replaced by a visible stand-in. Pure; spec/tools.md lists the mapping.
 */

/** Replacement for characters that have no visible picture of their own. */
export const REPLACEMENT = '\uFFFD';

function isHidden(code: number): boolean {
  return (
    (code >= 0x80 && code <= 0x9f) ||
    code === 0x061c ||
    code === 0x200b ||
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x2028 && code <= 0x202e) ||
    (code >= 0x2060 && code <= 0x2064) ||
    (code >= 0x2066 && code <= 0x2069) ||
    code === 0xfeff ||
    (code >= 0xe0000 && code <= 0xe007f)
  );
}

/** Whether `text` needs no replacement (the fast path: printable ASCII and ordinary Unicode). */
export function isSafeText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return false;
    if (
      c >= 0x600 &&
      (isHidden(c) || (c >= 0xd800 && c <= 0xdfff && !isPairedSurrogate(text, i)))
    ) {
      return false;
    }
    if (c >= 0xd800 && c <= 0xdbff) {
      const cp = text.codePointAt(i) as number;
      if (isHidden(cp)) return false;
      i++;
    }
  }
  return true;
}

function isPairedSurrogate(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c <= 0xdbff) {
    const next = text.charCodeAt(i + 1);
    return next >= 0xdc00 && next <= 0xdfff;
  }
  const prev = text.charCodeAt(i - 1);
  return prev >= 0xd800 && prev <= 0xdbff;
}

/** The first `max` UTF-16 units of `text`, never ending in half of a surrogate pair. */
export function truncateCodeUnits(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** The code point that stands for `code` in safe text (makeTextSafe, one code point at a time). */
export function safeCodePoint(code: number): number {
  if (code < 0x20) return 0x2400 + code;
  if (code === 0x7f) return 0x2421;
  return (code >= 0xd800 && code <= 0xdfff) || isHidden(code) ? 0xfffd : code;
}

/**
 * C0 controls become their Control Pictures (U+2400-U+241F), DEL becomes U+2421, and C1 controls,
 * bidirectional controls, invisible format characters, tag characters and lone surrogates become
 * U+FFFD.
 */
export function makeTextSafe(text: string): string {
  if (isSafeText(text)) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20) {
      out += String.fromCharCode(0x2400 + c);
    } else if (c === 0x7f) {
      out += '\u2421';
    } else if (c >= 0xd800 && c <= 0xdfff) {
      if (c <= 0xdbff && isPairedSurrogate(text, i)) {
        const cp = text.codePointAt(i) as number;
        out += isHidden(cp) ? REPLACEMENT : text.slice(i, i + 2);
        i++;
      } else {
        out += REPLACEMENT;
      }
    } else {
      out += isHidden(c) ? REPLACEMENT : text[i];
    }
  }
  return out;
}
