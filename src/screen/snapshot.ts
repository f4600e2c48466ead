/**
 * Pure extraction of what the screen shows: exactly `rows` strings, the cursor, and styles as a
 * legend plus runs of equal style (1-based inclusive columns; default-styled cells get no run).
 * Compares cell attributes as numbers and only builds a style key at the end of a run, so a
 * 200x50 screen with a different style on every cell is extracted in a few milliseconds.
 */
import { makeTextSafe } from './text-safety.js';
import { type IBufferCell, type IBufferLine, isCursorHidden, type Terminal } from './xterm.js';

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

/** [row, startColumn, endColumn, style]: 1-based, columns inclusive; style indexes `styles`. */
export type Span = [number, number, number, number];

export interface Cursor {
  row: number;
  column: number;
  visible: boolean;
}

export interface ScreenGrid {
  cols: number;
  rows: number;
  buffer: 'normal' | 'alternate';
  screen: string[];
  cursor: Cursor;
  /** The styles the spans use, by index. */
  styles: Style[];
  spans: Span[];
}

export interface History {
  /** Oldest first. */
  lines: string[];
  /** Lines of history the normal buffer holds now. */
  availableLines: number;
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

const COLOR_MODE_MASK = 0x3000000;
const CM_P16 = 0x1000000;
const CM_P256 = 0x2000000;
const CM_RGB = 0x3000000;

/** A cell's attributes as bits, in FLAG_NAMES order (bold 1, dim 2, … overline 256). */
export function cellFlags(cell: IBufferCell): number {
  return (
    (cell.isBold() ? 1 : 0) |
    (cell.isDim() ? 2 : 0) |
    (cell.isItalic() ? 4 : 0) |
    (cell.isUnderline() ? 8 : 0) |
    (cell.isBlink() ? 16 : 0) |
    (cell.isInverse() ? 32 : 0) |
    (cell.isInvisible() ? 64 : 0) |
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

/** Most UTF-16 units shown for one cell: a cell can collect unbounded combining marks. */
export const MAX_CELL_UNITS = 32;

/** A cell's characters, cut after MAX_CELL_UNITS without splitting a surrogate pair. */
function capCell(chars: string): string {
  if (chars.length <= MAX_CELL_UNITS) return chars;
  const code = chars.charCodeAt(MAX_CELL_UNITS - 1);
  return chars.slice(0, code >= 0xd800 && code <= 0xdbff ? MAX_CELL_UNITS - 1 : MAX_CELL_UNITS);
}

/**
 * A buffer line's text over cells [start, end), as the screen shows it: concealed cells and a wide
 * character cut by either edge are blanks, characters are made safe cell by cell. With `columns`,
 * also the 1-based cell column of each UTF-16 unit of the text.
 */
function readCells(line: IBufferLine, start: number, end: number, columns?: number[]): string {
  let cell: IBufferCell | undefined;
  let text = '';
  const last = Math.min(end, line.length);
  for (let x = start; x < last; x++) {
    cell = line.getCell(x, cell);
    const c = cell as IBufferCell;
    const width = c.getWidth();
    let chars: string;
    if (width === 0) {
      // The second half of a wide character whose first half lies before the range.
      if (x !== start) continue;
      chars = ' ';
    } else {
      const raw = capCell(c.getChars());
      const blank = raw === '' || c.isInvisible() || x + width > last;
      chars = blank ? ' '.repeat(Math.min(width, last - x)) : makeTextSafe(raw);
    }
    text += chars;
    if (columns) {
      for (let i = 0; i < chars.length; i++) columns.push(x + 1 + (chars === '  ' ? i : 0));
    }
  }
  return text;
}

/** A buffer line's text over cells [start, end), trailing blanks trimmed (see readCells). */
function lineText(line: IBufferLine, end: number, start = 0): string {
  return readCells(line, start, end).trimEnd();
}

interface StyleEntry {
  readonly fg: number;
  readonly bg: number;
  readonly flags: number;
  readonly index: number;
  readonly next: StyleEntry | undefined;
}

/** Extracts the visible screen of the active buffer. */
export function extractScreen(term: Terminal): ScreenGrid {
  const buffer = term.buffer.active;
  const cols = term.cols;
  const rows = term.rows;
  const screen: string[] = new Array(rows);
  const spans: Span[] = [];
  const styles: Style[] = [];
  // Styles are found by a small-integer hash of (foreground, background, flags) and a short
  // chain, never by building a string key: a screen with a style per cell stays fast.
  const styleIndex = new Map<number, StyleEntry>();
  let cell: IBufferCell | undefined;

  const styleFor = (fg: number, bg: number, flags: number): number => {
    const hash = (Math.imul(fg, 0x9e3779b1) ^ Math.imul(bg, 0x85ebca6b) ^ flags) & 0x3fffffff;
    const first = styleIndex.get(hash);
    for (let e = first; e !== undefined; e = e.next) {
      if (e.fg === fg && e.bg === bg && e.flags === flags) return e.index;
    }
    const index = styles.length;
    styles.push(buildStyle(fg, bg, flags));
    styleIndex.set(hash, { fg, bg, flags, index, next: first });
    return index;
  };

  for (let y = 0; y < rows; y++) {
    const line = buffer.getLine(buffer.baseY + y);
    if (!line) {
      screen[y] = '';
      continue;
    }
    cell = line.getCell(0, cell) ?? cell;
    let text = '';
    let keep = 0; // text length up to the last non-space or styled cell
    let runStart = 0;
    let runFg = 0;
    let runBg = 0;
    let runFlags = 0;
    let runStyled = false;
    const width = Math.min(cols, line.length);
    for (let x = 0; x < width; x++) {
      line.getCell(x, cell);
      const c = cell as IBufferCell;
      const fgMode = c.getFgColorMode();
      const bgMode = c.getBgColorMode();
      const fg = fgMode === 0 ? 0 : fgMode | (c.getFgColor() & 0xffffff);
      const bg = bgMode === 0 ? 0 : bgMode | (c.getBgColor() & 0xffffff);
      const flags = cellFlags(c);
      const styled = (fg & COLOR_MODE_MASK) !== 0 || (bg & COLOR_MODE_MASK) !== 0 || flags !== 0;
      if (styled !== runStyled || fg !== runFg || bg !== runBg || flags !== runFlags) {
        if (runStyled) spans.push([y + 1, runStart + 1, x, styleFor(runFg, runBg, runFlags)]);
        runStart = x;
        runFg = fg;
        runBg = bg;
        runFlags = flags;
        runStyled = styled;
      }
      const cellWidth = c.getWidth();
      if (cellWidth === 0) continue; // second half of a wide character
      const chars = capCell(c.getChars());
      if (chars === '' || chars === ' ' || flags & 64) {
        text += cellWidth === 2 ? '  ' : ' ';
        if (styled) keep = text.length;
      } else {
        text += chars;
        keep = text.length;
      }
    }
    if (runStyled) spans.push([y + 1, runStart + 1, width, styleFor(runFg, runBg, runFlags)]);
    screen[y] = makeTextSafe(keep === text.length ? text : text.slice(0, keep));
  }

  return {
    cols,
    rows,
    buffer: buffer.type,
    screen,
    cursor: {
      row: buffer.cursorY + 1,
      column: Math.min(buffer.cursorX, cols - 1) + 1,
      visible: !isCursorHidden(term),
    },
    styles,
    spans,
  };
}

export interface HistorySlice {
  /** The history count the slice starts after (the `since` asked for, or later if lines were lost). */
  since: number;
  /** Lines oldest first; the first is line number `since + 1` of all history. */
  lines: string[];
  /** Lines that scrolled into history, in all, so far. */
  total: number;
  /** Lines after `since` that were dropped because history was full before they were read. */
  missedLines: number;
}

/**
 * Normal-buffer history lines after the `since`-th line that ever scrolled into it, at most
 * `maxLines`. `trimmed` is how many lines the full history has dropped from its top so far.
 */
export function extractHistorySince(
  term: Terminal,
  since: number,
  maxLines: number,
  trimmed: number,
): HistorySlice {
  const normal = term.buffer.normal;
  const total = trimmed + normal.baseY;
  const start = Math.min(Math.max(since, trimmed), total);
  const end = Math.min(total, start + maxLines);
  const lines: string[] = [];
  for (let k = start; k < end; k++) {
    const line = normal.getLine(k - trimmed);
    lines.push(line ? lineText(line, term.cols) : '');
  }
  return { since: start, lines, total, missedLines: Math.max(0, Math.min(trimmed, total) - since) };
}

/** The last `count` lines of normal-buffer history, oldest first. */
export function extractHistory(term: Terminal, count: number): History {
  const normal = term.buffer.normal;
  const available = normal.baseY;
  const n = Math.min(count, available);
  const lines: string[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const line = normal.getLine(available - n + i);
    lines[i] = line ? lineText(line, term.cols) : '';
  }
  return { lines, availableLines: available };
}

/** A screen row's text with, for each UTF-16 unit of it, the 1-based cell column it sits in. */
export interface RowText {
  readonly text: string;
  readonly columns: readonly number[];
}

/**
 * Row `y` (0-based) of the active screen as text, with the cell column of each character.
 * Trailing blanks are dropped, except on the cursor's row up to the cursor: a prompt such as
 * "Name? " keeps the space it waits after.
 */
export function extractRowText(term: Terminal, y: number): RowText {
  const buffer = term.buffer.active;
  const line = buffer.getLine(buffer.baseY + y);
  if (!line) return { text: '', columns: [] };
  const columns: number[] = [];
  const text = readCells(line, 0, term.cols, columns);
  let keep = text.trimEnd().length;
  if (buffer.cursorY === y) {
    const atCursor = columns.findIndex((column) => column > buffer.cursorX);
    keep = Math.max(keep, atCursor === -1 ? text.length : atCursor);
  }
  return { text: text.slice(0, keep), columns: columns.slice(0, keep) };
}

/** The text of the cells in [startColumn, endColumn] (1-based, inclusive) of active row `y`. */
export function extractCells(
  term: Terminal,
  y: number,
  startColumn: number,
  endColumn: number,
): string {
  const buffer = term.buffer.active;
  const line = buffer.getLine(buffer.baseY + y);
  if (!line) return '';
  return lineText(line, endColumn, startColumn - 1);
}
