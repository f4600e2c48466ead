/** terminal_snapshot: observe the screen (after it settles) without sending anything. */
import { TerminalError } from '../errors.js';
import { checkSettleTiming } from '../input/actions.js';
import { formatSnapshot } from './format.js';
import { ToolFailure } from './result.js';
import { schemas } from './schemas.js';
import { defineTool, observeOptions } from './tool.js';

export const terminalSnapshot = defineTool({
  name: 'terminal_snapshot',
  title: 'Read a terminal screen',
  description: [
    'Return the current screen of a terminal session once it settles, without sending input: rows of text, cursor, styles, active buffer, mouse mode and process status.',
    'Use it to check on a long-running command or to wait for output; settleMs:0 reads at once.',
    'scrollbackLines (up to 2000) also returns the history above the screen, oldest first, even while a full-screen program uses the alternate screen.',
    'An exited program keeps its final screen and exit status until terminal_close.',
  ].join(' '),
  annotations: {
    title: 'Read a terminal screen',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  inputSchema: () => schemas().SnapshotInputSchema,
  outputSchema: () => schemas().ObservationOutputSchema,
  async handler(args, ctx) {
    checkSettleTiming(args.settleMs, args.settleTimeoutMs, ctx.config.quietMs);
    const session = ctx.registry.get(args.sessionId);
    try {
      const snapshot = await session.observe(
        observeOptions(ctx.config, args.settleMs, args.settleTimeoutMs, ctx.signal),
        args.scrollbackLines ?? 0,
      );
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
