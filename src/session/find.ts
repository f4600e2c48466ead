/**
 * Searching what a session shows: its screen rows, and on request its history lines (the
 * transcript), in the match worker under the pattern time budget. History is searched in bounded
 * batches, each one evaluation, so a long transcript never holds the main thread or one worker
 * evaluation for long. Matches are placed by row and cell column (screen/find.ts) and numbered in
 * the one line numbering: history line N, screen row r is line `historyTotal + r`.
 * @see spec/tools.md (terminal_snapshot)
 */
import { sharedMatchPool } from '../match/match-pool.js';
import { type LineMatch, type Match, placeLineMatches, placeMatches } from '../screen/find.js';
import type { RowText } from '../screen/lines.js';
import type { EncodedSlice } from '../screen/transcript-read.js';
import type { CompiledQuery } from '../shared/text-query.js';

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

/** A match in the one line numbering; `row` when it is on the screen. */
export interface FoundMatch {
  readonly line: number;
  readonly row?: number;
  readonly column: number;
  readonly endColumn: number;
  readonly text: string;
}

/**
 * Reads history lines after `since` up to `end`, at most `maxLines` and `maxBytes` past the
 * first, as UTF-8 bytes: the worker decodes them, so the main thread builds no strings.
 */
export type HistoryReader = (
  since: number,
  maxLines: number,
  maxBytes: number,
  end: number,
) => EncodedSlice;

export interface TerminalFindOptions extends FindOptions {
  /** Search the history lines after this line first (undefined: the screen only). */
  readonly historyAfter?: number | undefined;
  /** The last history line: the screen's row r is line historyTotal + r. */
  readonly historyTotal: number;
  readonly readHistory: HistoryReader;
}

/** History lines searched in one evaluation, at most: this many, and this much text. */
const FIND_BATCH_LINES = 10_000;
const FIND_BATCH_BYTES = 512 * 1024;

export interface HistoryFindOptions extends FindOptions {
  /** Search the history lines after this line, up to line `end`. */
  readonly after: number;
  readonly end: number;
  readonly readHistory: HistoryReader;
  /** Lines and bytes searched in one evaluation (FIND_BATCH_LINES, FIND_BATCH_BYTES). */
  readonly batchLines?: number | undefined;
  readonly batchBytes?: number | undefined;
}

/**
 * The matches of `query` in the history lines after `after` up to `end`, oldest first, at most
 * `limit`: the one paging loop over history, a batch per evaluation.
 */
export async function findInHistory(
  query: CompiledQuery,
  options: HistoryFindOptions,
): Promise<LineMatch[]> {
  const { limit, end, signal } = options;
  const found: LineMatch[] = [];
  const withEmpty = options.withEmpty === true;
  const lines = options.batchLines ?? FIND_BATCH_LINES;
  const bytes = options.batchBytes ?? FIND_BATCH_BYTES;
  let since = options.after;
  while (since < end && found.length < limit) {
    const slice = options.readHistory(since, lines, bytes, end);
    if (slice.ends.length === 0) break;
    const wanted = limit - found.length;
    const hits = await sharedMatchPool().search(query, slice, { limit: wanted, withEmpty, signal });
    // Only the lines that matched become strings here, to place the matches by cell column.
    const texts: string[] = [];
    for (const hit of hits) texts[hit.textIndex] ??= lineText(slice, hit.textIndex);
    found.push(...placeLineMatches(texts, hits, slice.since + 1));
    since = slice.since + slice.ends.length;
  }
  return found;
}

/**
 * The matches of `query` in history after `historyAfter` (oldest first), then on the screen, at
 * most `limit`; `truncated` when there are more.
 */
export async function findInTerminal(
  rows: readonly RowText[],
  query: CompiledQuery,
  options: TerminalFindOptions,
): Promise<{ matches: FoundMatch[]; truncated: boolean }> {
  const { limit, historyTotal, signal } = options;
  // One more than the limit: whether it is reached says whether there are more.
  const found: FoundMatch[] =
    options.historyAfter === undefined
      ? []
      : await findInHistory(query, {
          limit: limit + 1,
          signal,
          after: options.historyAfter,
          end: historyTotal,
          readHistory: options.readHistory,
        });
  const wanted = limit + 1 - found.length;
  if (wanted > 0) {
    const onScreen = await findInRows(rows, query, { limit: wanted, signal });
    found.push(...onScreen.map((m) => ({ line: historyTotal + m.row, ...m })));
  }
  return { matches: found.slice(0, limit), truncated: found.length > limit };
}

/** Line i of an encoded slice, as text. */
function lineText(slice: EncodedSlice, i: number): string {
  const from = i === 0 ? 0 : (slice.ends[i - 1] as number);
  return Buffer.from(
    slice.utf8.buffer,
    slice.utf8.byteOffset + from,
    (slice.ends[i] as number) - from,
  ).toString('utf8');
}
