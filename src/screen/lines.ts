/**
 * Reading the terminal's lines as text: screen rows with the cell column of each character, and
 * the cells of a region (history is read from the transcript, screen/transcript.ts).
 * Every reader goes through readCells, so concealed cells, wide characters cut by an edge and
 * unsafe characters read the same everywhere.
 */
import { MAX_CELL_UNITS } from './cell-join.js';
import { makeTextSafe, truncateCodeUnits } from './text-safety.js';
import type { IBufferCell, IBufferLine, Terminal } from './xterm.js';

export interface History {
  /** Oldest first. */
  lines: string[];
  /** Lines of history the scrollback view offers now. */
  availableLines: number;
}

export interface HistorySlice {
  /** The history count the slice starts after (the `since` asked for, or later if lines were lost). */
  since: number;
  /** Lines oldest first; the first is line number `since + 1` of all history. */
  lines: string[];
  /** Lines that scrolled into history, in all, so far. */
  total: number;
  /** Lines after `since` that the transcript dropped for its bound before they were read. */
  missedLines: number;
  /** Why lines were dropped besides the bound, or kept in memory only (the disk is full). */
  transcriptError?: string;
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
      const raw = cellChars(c);
      if (raw !== '' && !c.isInvisible()) {
        // A combining mark in a cell of its own: the emulator gives one that follows an escape
        // sequence (`e` SGR U+0301) a cell instead of joining it to the one before. Kept.
        chars = makeTextSafe(raw);
      } else if (x !== start) {
        // The second half of a wide character.
        continue;
      } else {
        // The second half of a wide character whose first half lies before the range.
        chars = ' ';
      }
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
