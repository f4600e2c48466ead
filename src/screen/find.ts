/**
 * Searching what the terminal shows: matches found in the row texts (see match/) placed by row
 * and cell column, so wide characters count two columns. Pure over RowText; the caller extracts
 * the rows and runs the search.
 */
import type { RowText } from './lines.js';

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
