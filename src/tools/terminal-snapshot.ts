/**
 * terminal_snapshot: observe the screen (after it settles) without sending anything; optionally
 * with history (the last N lines, or every line after a count), a region, and search matches.
 */

import { formatSnapshot } from '../render/format.js';
import { readSession } from '../session/run-snapshot.js';
import { observationResultSchemas } from '../shared/contract/observation-result.js';
import { terminalSnapshotSchemas } from './terminal-snapshot.schema.js';
import { defineTool } from './tool.js';

export const terminalSnapshot = defineTool({
  name: 'terminal_snapshot',
  title: 'Read a terminal screen',
  description: [
    "Read a session's screen once it settles, sending no input (settleMs 0: at once).",
    "An exited program's screen stays until terminal_close.",
  ].join(' '),
  annotations: {
    title: 'Read a terminal screen',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  inputSchema: () => terminalSnapshotSchemas().SnapshotInputSchema,
  outputSchema: () => observationResultSchemas().ObservationResultSchema,
  async handler(args, ctx) {
    const session = ctx.registry.get(args.sessionId);
    const snapshot = await readSession(session, args, { defaults: ctx.config, signal: ctx.signal });
    return {
      structured: { sessionId: session.id, snapshot },
      text: formatSnapshot(session.id, snapshot),
    };
  },
});
