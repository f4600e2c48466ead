/** terminal_start: spawn a program in a new terminal and return its first settled snapshot. */
import { TerminalError } from '../errors.js';
import { checkSettleTiming } from '../input/actions.js';
import { planLaunch } from '../session/launch.js';
import { formatSnapshot } from './format.js';
import { ToolFailure } from './result.js';
import { schemas } from './schemas.js';
import { defineTool, observeOptions } from './tool.js';

export const terminalStart = defineTool({
  name: 'terminal_start',
  title: 'Start a terminal',
  description: [
    'Run a command in a new real terminal (PTY + xterm emulator) and return its screen once it settles, with the sessionId for the other terminal_* tools.',
    'Use it for anything interactive or full-screen that a plain shell tool would hang on: prompts (npm init, drizzle-kit, git add -p), REPLs (python3, node), editors and TUIs (vim, less, htop), ssh, installers.',
    'The command runs as `shell -l -c command` (login:false drops -l); without a command you get an interactive shell. Example: {"command":"python3","cols":100,"rows":30}.',
    'Returns {sessionId, snapshot}; the snapshot has the screen rows, cursor, styles, status (running/exited with exitCode or signal) and settled.',
  ].join(' '),
  annotations: {
    title: 'Start a terminal',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  inputSchema: () => schemas().StartInputSchema,
  outputSchema: () => schemas().ObservationOutputSchema,
  async handler(args, ctx) {
    checkSettleTiming(args.settleMs, args.settleTimeoutMs, ctx.config.quietMs);
    const plan = planLaunch(args, ctx.launchDefaults);
    const session = await ctx.registry.start({
      plan,
      cols: args.cols ?? ctx.config.defaultCols,
      rows: args.rows ?? ctx.config.defaultRows,
    });
    try {
      const snapshot = await session.observe(
        observeOptions(ctx.config, args.settleMs, args.settleTimeoutMs, ctx.signal),
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
