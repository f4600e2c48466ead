/**
 * The style model of a cell: colours, attribute flags and the Style a snapshot reports. Cells are
 * compared as numbers (colour mode and value, a flag word); a Style object is built once per
 * distinct combination, through StyleTable.
 */
import type { IBufferCell } from './xterm.js';

/** A colour: a palette index (0-255) or an RGB value "#rrggbb". */
export type Color = number | string;

export interface Style {
  fg?: Color;
  bg?: Color;
  bold?: true;
  dim?: true;
  italic?: true;
  underline?: true;
  blink?: true;
  inverse?: true;
  invisible?: true;
  strikethrough?: true;
  overline?: true;
}

const FLAG_NAMES = [
  'bold',
  'dim',
  'italic',
  'underline',
  'blink',
  'inverse',
  'invisible',
  'strikethrough',
  'overline',
] as const;

/** The flag bit of concealed (SGR 8) cells in cellFlags(). */
export const INVISIBLE_FLAG = 64;

/** Bits of a colour word (a cell's colour mode ORed with its value) that hold the mode; 0: default. */
export const COLOR_MODE_MASK = 0x3000000;
/** Colour modes in a colour word: the 16-colour palette, the 256-colour palette, RGB. */
export const CM_P16 = 0x1000000;
export const CM_P256 = 0x2000000;
export const CM_RGB = 0x3000000;

/** A cell's attributes as bits, in FLAG_NAMES order (bold 1, dim 2, … overline 256). */
export function cellFlags(cell: IBufferCell): number {
  return (
    (cell.isBold() ? 1 : 0) |
    (cell.isDim() ? 2 : 0) |
    (cell.isItalic() ? 4 : 0) |
    (cell.isUnderline() ? 8 : 0) |
    (cell.isBlink() ? 16 : 0) |
    (cell.isInverse() ? 32 : 0) |
    (cell.isInvisible() ? INVISIBLE_FLAG : 0) |
    (cell.isStrikethrough() ? 128 : 0) |
    (cell.isOverline() ? 256 : 0)
  );
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function colorOf(modeAndValue: number): Color | undefined {
  const mode = modeAndValue & COLOR_MODE_MASK;
  const value = modeAndValue & 0xffffff;
  if (mode === CM_P16 || mode === CM_P256) return value;
  if (mode === CM_RGB) {
    return `#${HEX[value >>> 16]}${HEX[(value >>> 8) & 0xff]}${HEX[value & 0xff]}`;
  }
  return undefined;
}

/** The Style of colour words `fg` and `bg` (mode | value, 0 for default) and flag bits `flags`. */
function buildStyle(fg: number, bg: number, flags: number): Style {
  const style: Style = {};
  const fgColor = colorOf(fg);
  const bgColor = colorOf(bg);
  if (fgColor !== undefined) style.fg = fgColor;
  if (bgColor !== undefined) style.bg = bgColor;
  for (let i = 0; i < FLAG_NAMES.length; i++) {
    if (flags & (1 << i)) style[FLAG_NAMES[i] as (typeof FLAG_NAMES)[number]] = true;
  }
  return style;
}

interface StyleEntry {
  readonly fg: number;
  readonly bg: number;
  readonly flags: number;
  readonly index: number;
  readonly next: StyleEntry | undefined;
}

/** The distinct styles of one snapshot, in order of first use, each with its index. */
export class StyleTable {
  /** The styles, by index. */
  readonly styles: Style[] = [];
  // Styles are found by a small-integer hash of (foreground, background, flags) and a short
  // chain, never by building a string key: a screen with a style per cell stays fast.
  private readonly _index = new Map<number, StyleEntry>();

  /** The index of the style of (fg, bg, flags), added on first use. */
  indexOf(fg: number, bg: number, flags: number): number {
    const hash = (Math.imul(fg, 0x9e3779b1) ^ Math.imul(bg, 0x85ebca6b) ^ flags) & 0x3fffffff;
    const first = this._index.get(hash);
    for (let e = first; e !== undefined; e = e.next) {
      if (e.fg === fg && e.bg === bg && e.flags === flags) return e.index;
    }
    const index = this.styles.length;
    this.styles.push(buildStyle(fg, bg, flags));
    this._index.set(hash, { fg, bg, flags, index, next: first });
    return index;
  }
}
