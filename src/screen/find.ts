/**
 * Searching what the terminal shows: matches found in the row texts (see match/) placed by row
 * and cell column, so wide characters count two columns; and matches in history lines, whose
 * columns are counted from their text. Pure over texts; the caller reads them and runs the search.
 */
import type { RowText } from './lines.js';
import { cellWidth } from './xterm.js';

export interface Match {
  /** 1-based row of the screen. */
  readonly row: number;
  /** 1-based cell columns of the first and last character, inclusive. */
  readonly column: number;
  readonly endColumn: number;
  readonly text: string;
}

/** A match in one row's text: the row's index, the UTF-16 index in its text, the text matched. */
export interface RowHit {
  readonly textIndex: number;
  readonly index: number;
  readonly text: string;
}

/** The hits of a search over `rows.map((r) => r.text)` as screen matches. */
export function placeMatches(rows: readonly RowText[], hits: readonly RowHit[]): Match[] {
  return hits.map((hit) => {
    const columns = rows[hit.textIndex]?.columns ?? [];
    const last = hit.index + hit.text.length - 1;
    return {
      row: hit.textIndex + 1,
      column: columns[hit.index] ?? 1,
      endColumn: columns[last] ?? columns[hit.index] ?? 1,
      text: hit.text,
    };
  });
}

/** A match in a history line: its line number, cell columns counted from the text. */
export interface LineMatch {
  readonly line: number;
  readonly column: number;
  readonly endColumn: number;
  readonly text: string;
}

/** The hits of a search over history lines `texts`, the first of which is line `firstLine`. */
export function placeLineMatches(
  texts: readonly string[],
  hits: readonly RowHit[],
  firstLine: number,
): LineMatch[] {
  return hits.map((hit) => {
    const columns = textColumns(texts[hit.textIndex] ?? '', hit.index + hit.text.length);
    const last = Math.max(hit.index, hit.index + hit.text.length - 1);
    return {
      line: firstLine + hit.textIndex,
      column: columns[hit.index] ?? 1,
      endColumn: columns[last] ?? columns[hit.index] ?? 1,
      text: hit.text,
    };
  });
}

/**
 * The 1-based cell column of each of the first `units` UTF-16 units of a row's text, by the
 * emulator's character widths: a wide character takes two cells, a joining mark none.
 */
export function textColumns(text: string, units = text.length): number[] {
  const columns: number[] = [];
  let next = 1;
  let previous = 1;
  for (let i = 0; i < text.length && columns.length < units; ) {
    const code = text.codePointAt(i) as number;
    const size = code > 0xffff ? 2 : 1;
    const width = cellWidth(code);
    const joins = width === 0 && i > 0;
    const column = joins ? previous : next;
    for (let k = 0; k < size; k++) columns.push(column);
    if (!joins) {
      previous = column;
      next = column + Math.max(width, 1);
    }
    i += size;
  }
  return columns;
}
