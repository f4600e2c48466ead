/**
 * Searching what the terminal shows: matches of a compiled query (see text-query.ts) reported by
 * row and cell column, so wide characters count two columns. Pure over RowText; the caller
 * extracts the rows.
 */
import type { RowText } from './snapshot.js';

export interface Match {
  /** 1-based row of the screen. */
  readonly row: number;
  /** 1-based cell columns of the first and last character, inclusive. */
  readonly column: number;
  readonly endColumn: number;
  readonly text: string;
}

/** Every match of `re` in each row (matches do not span rows), at most `limit`. */
export function findMatches(rows: readonly RowText[], re: RegExp, limit: number): Match[] {
  const matches: Match[] = [];
  rows.forEach((row, index) => {
    re.lastIndex = 0;
    for (let m = re.exec(row.text); m !== null && matches.length < limit; m = re.exec(row.text)) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      const last = m.index + m[0].length - 1;
      matches.push({
        row: index + 1,
        column: row.columns[m.index] ?? 1,
        endColumn: row.columns[last] ?? row.columns[m.index] ?? 1,
        text: m[0],
      });
    }
  });
  return matches;
}
