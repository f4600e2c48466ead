/**
 * Searching what a session's screen shows: its row texts searched in the match worker (under the
 * pattern time budget), each match placed by row and cell column (screen/find.ts).
 */
import { sharedMatchPool } from '../match/match-pool.js';
import { type Match, placeMatches } from '../screen/find.js';
import type { RowText } from '../screen/lines.js';
import type { CompiledQuery } from '../text-query.js';

export interface FindOptions {
  /** At most this many matches. */
  readonly limit: number;
  /** Whether an empty match counts (a pattern such as `^$` finds blank rows). */
  readonly withEmpty?: boolean | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** The matches of `query` in `rows`, in reading order; rows are numbered from their first. */
export async function findInRows(
  rows: readonly RowText[],
  query: CompiledQuery,
  options: FindOptions,
): Promise<Match[]> {
  const hits = await sharedMatchPool().search(
    query,
    rows.map((r) => r.text),
    { limit: options.limit, withEmpty: options.withEmpty === true, signal: options.signal },
  );
  return placeMatches(rows, hits);
}
