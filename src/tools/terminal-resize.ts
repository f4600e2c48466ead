/** terminal_resize: change the PTY and the screen size together; the program gets SIGWINCH. */
import { TerminalError } from '../errors.js';
import { checkSettleTiming } from '../input/actions.js';
import { failureWithSnapshot } from './failure.js';
import { formatSnapshot } from './format.js';
import { terminalResizeSchemas } from './terminal-resize.schema.js';
import { defineTool, observeOptions } from './tool.js';

export const terminalResize = defineTool({
  name: 'terminal_resize',
  title: 'Resize a terminal',
  description: [
    'Resize a running terminal to cols x rows (2-500 x 1-200): the PTY and the emulated screen change together and the program receives SIGWINCH, as when a window is resized.',
    'Returns the snapshot at the new size once it settles. Queued behind any input batch still running on the session.',
  ].join(' '),
  annotations: {
    title: 'Resize a terminal',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  inputSchema: () => terminalResizeSchemas().ResizeInputSchema,
  outputSchema: () => terminalResizeSchemas().ResizeOutputSchema,
  async handler(args, ctx) {
    checkSettleTiming(args.settleMs, args.settleTimeoutMs, ctx.config.quietMs);
    const session = ctx.registry.get(args.sessionId);
    try {
      session.assertRunning();
      await session.queue.run(() => session.resize(args.cols, args.rows), ctx.signal);
      const snapshot = await session.observe(
        observeOptions(ctx.config, args.settleMs, args.settleTimeoutMs, ctx.signal),
      );
      return {
        structured: { sessionId: session.id, snapshot },
        text: formatSnapshot(session.id, snapshot),
      };
    } catch (err) {
      if (err instanceof TerminalError) throw failureWithSnapshot(err, session);
      throw err;
    }
  },
});
