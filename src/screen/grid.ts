/**
 * The visible screen of the active buffer as a grid: exactly `rows` strings, the cursor, and
 * styles as a legend plus runs of equal style (1-based inclusive columns; default-styled cells
 * get no run). Reads text and attributes in one pass, comparing attributes as numbers and
 * building a style only at the end of a run, so a 200x50 screen with a different style on every
 * cell is extracted in a few milliseconds. Text rules per cell: lines.ts; the style model: style.ts.
 */
import { cellChars } from './lines.js';
import { COLOR_MODE_MASK, cellFlags, INVISIBLE_FLAG, type Style, StyleTable } from './style.js';
import { makeTextSafe } from './text-safety.js';
import type { IBufferCell, Terminal } from './xterm.js';
import { isCursorHidden } from './xterm-terminal.js';

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

/** Extracts the visible screen of the active buffer. */
export function extractScreen(term: Terminal): ScreenGrid {
  const buffer = term.buffer.active;
  const cols = term.cols;
  const rows = term.rows;
  const screen: string[] = new Array(rows);
  const spans: Span[] = [];
  const table = new StyleTable();
  let cell: IBufferCell | undefined;

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
        if (runStyled) spans.push([y + 1, runStart + 1, x, table.indexOf(runFg, runBg, runFlags)]);
        runStart = x;
        runFg = fg;
        runBg = bg;
        runFlags = flags;
        runStyled = styled;
      }
      const cellWidth = c.getWidth();
      const chars = cellChars(c);
      if (cellWidth === 0) {
        // A combining mark in a cell of its own (lines.ts readCells) is kept; the second half
        // of a wide character has no text.
        if (chars !== '' && !(flags & INVISIBLE_FLAG)) {
          text += chars;
          keep = text.length;
        }
        continue;
      }
      if (chars === '' || chars === ' ' || flags & INVISIBLE_FLAG) {
        text += cellWidth === 2 ? '  ' : ' ';
        if (styled) keep = text.length;
      } else {
        text += chars;
        keep = text.length;
      }
    }
    if (runStyled) spans.push([y + 1, runStart + 1, width, table.indexOf(runFg, runBg, runFlags)]);
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
    styles: table.styles,
    spans,
  };
}
