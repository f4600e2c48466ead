/**
 * Reading the terminal's lines as text: screen rows with the cell column of each character,
 * normal-buffer history (the last lines, or those after a count), and the cells of a region.
 * Every reader goes through readCells, so concealed cells, wide characters cut by an edge and
 * unsafe characters read the same everywhere.
 */
import { MAX_CELL_UNITS } from './output-filter.js';
import { makeTextSafe, truncateCodeUnits } from './text-safety.js';
import type { IBufferCell, IBufferLine, Terminal } from './xterm.js';

export interface History {
  /** Oldest first. */
  lines: string[];
  /** Lines of history the normal buffer holds now. */
  availableLines: number;
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

/** A screen row's text with, for each UTF-16 unit of it, the 1-based cell column it sits in. */
export interface RowText {
  readonly text: string;
  readonly columns: readonly number[];
}

/**
 * A cell's characters, cut after MAX_CELL_UNITS without splitting a surrogate pair: a cell can
 * collect unbounded combining marks.
 */
export function cellChars(cell: IBufferCell): string {
  return truncateCodeUnits(cell.getChars(), MAX_CELL_UNITS);
}

/**
 * A buffer line's text over cells [start, end), as the screen shows it: concealed cells and a wide
 * character cut by either edge are blanks, characters are made safe cell by cell. With `columns`,
 * also the 1-based cell column of each UTF-16 unit of the text. Trailing blanks are kept: each
 * caller trims as it needs.
 */
export function readCells(
  line: IBufferLine,
  start: number,
  end: number,
  columns?: number[],
): string {
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
      const raw = cellChars(c);
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
    lines.push(line ? readCells(line, 0, term.cols).trimEnd() : '');
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
    lines[i] = line ? readCells(line, 0, term.cols).trimEnd() : '';
  }
  return { lines, availableLines: available };
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
  return readCells(line, startColumn - 1, endColumn).trimEnd();
}
