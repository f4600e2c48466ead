/**
 * terminal_snapshot: observe the screen (after it settles) without sending anything; optionally
 * with history (the last N lines, or every line after a count), a region, and search matches.
 */
import { LIMITS } from '../config.js';
import { TerminalError } from '../errors.js';
import { checkSettleTiming } from '../input/actions.js';
import { sharedMatchPool } from '../match/match-pool.js';
import { placeMatches } from '../screen/find.js';
import type { Session, Snapshot } from '../session/session.js';
import { compileQuery } from '../text-query.js';
import { formatSnapshot } from './format.js';
import { ToolFailure } from './result.js';
import { terminalSnapshotSchemas } from './terminal-snapshot.schema.js';
import { defineTool, observeOptions } from './tool.js';

const MAX_MATCHES = 200;

export const terminalSnapshot = defineTool({
  name: 'terminal_snapshot',
  title: 'Read a terminal screen',
  description: [
    'Return the current screen of a terminal session once it settles, without sending input: rows of text, cursor, styles, active buffer, mouse mode and process status.',
    'Use it to check on a long-running command or to wait for output; settleMs:0 reads at once.',
    'scrollbackLines (up to 2000) adds the history above the screen; historySince reads the lines that scrolled past since an earlier snapshot (its historyTotal), so a long log is read once.',
    'region returns a rectangle of cells; find returns where text or a regex occurs (row and cell column).',
    'An exited program keeps its final screen and exit status until terminal_close.',
  ].join(' '),
  annotations: {
    title: 'Read a terminal screen',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  inputSchema: () => terminalSnapshotSchemas().SnapshotInputSchema,
  outputSchema: () => terminalSnapshotSchemas().SnapshotOutputSchema,
  async handler(args, ctx) {
    checkSettleTiming(args.settleMs, args.settleTimeoutMs, ctx.config.quietMs);
    const find = args.find;
    if (find && (find.text === undefined) === (find.pattern === undefined)) {
      throw new TerminalError(
        'INVALID_ARGUMENT',
        'find takes exactly one of text (literal) or pattern (a regular expression)',
        { find },
      );
    }
    const query = find ? compileQuery(find, 'find.pattern') : undefined;
    const session = ctx.registry.get(args.sessionId);
    try {
      const snapshot = await session.observe(
        observeOptions(ctx.config, args.settleMs, args.settleTimeoutMs, ctx.signal),
        args.scrollbackLines ?? 0,
      );
      if (args.historySince !== undefined) addHistory(snapshot, session, args.historySince);
      if (args.region) addRegion(snapshot, session, args.region);
      if (query) {
        const rows = session.rowTexts();
        const texts = rows.map((r) => r.text);
        const hits = await sharedMatchPool().search(query, texts, {
          limit: MAX_MATCHES,
          signal: ctx.signal,
        });
        snapshot.matches = placeMatches(rows, hits);
      }
      return {
        structured: { sessionId: session.id, snapshot },
        text: formatSnapshot(session.id, snapshot),
      };
    } catch (err) {
      if (err instanceof TerminalError) throw new ToolFailure(err, { sessionId: session.id });
      throw err;
    }
  },
});

function addHistory(snapshot: Snapshot, session: Session, since: number): void {
  const slice = session.historySince(since, LIMITS.maxScrollbackRequest);
  const end = slice.since + slice.lines.length;
  snapshot.history = end < slice.total ? { ...slice, nextSince: end } : slice;
}

function addRegion(
  snapshot: Snapshot,
  session: Session,
  region: { row: number; column: number; rows: number; cols: number },
): void {
  if (region.row > snapshot.rows || region.column > snapshot.cols) {
    throw new TerminalError(
      'OUT_OF_BOUNDS',
      `region starts at row ${region.row}, column ${region.column}, outside the ${snapshot.cols}x${snapshot.rows} screen`,
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
    lines: session.region(region.row, region.column, rows, cols),
  };
}
