/**
 * terminal_snapshot's pipeline: observe the settled screen, then add what the call asked for
 * (history since a line, a region, search matches). A failure carries the latest screen.
 * @see spec/tools.md (terminal_snapshot)
 */
import { LIMITS } from '../shared/config.js';
import { TerminalError } from '../shared/errors.js';
import { compileQuery } from '../shared/text-query.js';
import { findInTerminal } from './find.js';
import { withLatestScreen } from './latest-screen.js';
import {
  checkSettleTiming,
  type ObserveDefaults,
  observeOptions,
  observeSession,
  type SettleRequest,
} from './observation.js';
import type { Session, Snapshot } from './session.js';
import { withTranscriptError } from './session-view.js';

/** The most matches a find returns. */
const MAX_MATCHES = 200;

export interface ReadRequest extends SettleRequest {
  readonly scrollbackLines?: number | undefined;
  readonly historySince?: number | undefined;
  readonly region?: Region | undefined;
  readonly find?:
    | {
        readonly text?: string | undefined;
        readonly pattern?: string | undefined;
        readonly ignoreCase?: boolean | undefined;
        /** Also search the history lines after this line. */
        readonly history?: number | undefined;
      }
    | undefined;
}

export interface Region {
  readonly row: number;
  readonly column: number;
  readonly rows: number;
  readonly cols: number;
}

export interface ObserveCallOptions {
  readonly defaults: ObserveDefaults;
  readonly signal?: AbortSignal | undefined;
}

/** The settled screen with the extras the call asked for. */
export async function readSession(
  session: Session,
  request: ReadRequest,
  options: ObserveCallOptions,
): Promise<Snapshot> {
  checkSettleTiming(request, options.defaults);
  const { find } = request;
  if (find && (find.text === undefined) === (find.pattern === undefined)) {
    throw new TerminalError(
      'INVALID_ARGUMENT',
      'find takes exactly one of text (literal) or pattern (a regular expression)',
      { find },
    );
  }
  const query = find ? compileQuery(find, 'find.pattern') : undefined;
  try {
    const snapshot = await observeSession(
      session,

      observeOptions(options.defaults, request, options.signal),
      request.scrollbackLines ?? 0,
    );
    if (request.historySince !== undefined) addHistory(snapshot, session, request.historySince);
    if (request.region) addRegion(snapshot, session, request.region);
    if (query) {
      const { matches, truncated } = await findInTerminal(session.screen.rowTexts(), query, {
        limit: MAX_MATCHES,
        signal: options.signal,
        historyAfter: find?.history,
        historyTotal: snapshot.historyTotal,
        readHistory: (since, maxLines, maxBytes, end) =>
          session.screen.historyBytes(since, maxLines, maxBytes, end),
      });
      snapshot.matches = matches;
      if (truncated) snapshot.matchesTruncated = true;
    }
    return withTranscriptError(snapshot, session.screen.transcriptError);
  } catch (err) {
    throw withLatestScreen(err, session, 'terminal_snapshot');
  }
}

/** The page of history after line `since` (at most 2000 lines and 1 MiB), and where to go on. */
function addHistory(snapshot: Snapshot, session: Session, since: number): void {
  const slice = session.screen.historySince(
    since,
    LIMITS.maxScrollbackRequest,
    LIMITS.maxHistoryPageBytes,
  );
  const end = slice.since + slice.lines.length;
  snapshot.history = end < slice.total ? { ...slice, nextSince: end } : slice;
}

function addRegion(snapshot: Snapshot, session: Session, region: Region): void {
  if (region.row > snapshot.rows || region.column > snapshot.cols) {
    throw new TerminalError(
      'OUT_OF_BOUNDS',
      `region starts at row ${region.row}, column ${region.column}, outside the ${snapshot.cols}x${snapshot.rows} screen; start it at a row from 1 to ${snapshot.rows} and a column from 1 to ${snapshot.cols}`,
      { cols: snapshot.cols, rows: snapshot.rows },
    );
  }
  const rows = Math.min(region.rows, snapshot.rows - region.row + 1);
  const cols = Math.min(region.cols, snapshot.cols - region.column + 1);
  snapshot.region = {
    row: region.row,
    column: region.column,
    rows,
    cols,
    lines: session.screen.region(region.row, region.column, rows, cols),
  };
}
