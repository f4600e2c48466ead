/**
 * terminal_snapshot: observe the screen (after it settles) without sending anything; optionally
 * with history (the last N lines, or every line after a count), a region, and search matches.
 */
import { formatSnapshot } from '../render/format.js';
import { readSession } from '../session/observe-session.js';
import { terminalSnapshotSchemas } from './terminal-snapshot.schema.js';
import { defineTool } from './tool.js';

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
    const session = ctx.registry.get(args.sessionId);
    const snapshot = await readSession(session, args, { defaults: ctx.config, signal: ctx.signal });
    return {
      structured: { sessionId: session.id, snapshot },
      text: formatSnapshot(session.id, snapshot),
    };
  },
});
