/**
 * terminal_start: spawn a program in a new terminal and return its first settled snapshot; or,
 * with waitForExit, run it to completion (a one-shot run) and optionally close the session.
 */
import { TerminalError } from '../errors.js';
import { checkSettleTiming } from '../input/actions.js';
import { planLaunch } from '../session/launch.js';
import type { Session, Snapshot } from '../session/session.js';
import { waitForCondition } from '../session/wait.js';
import { formatSnapshot } from './format.js';
import { ToolFailure } from './result.js';
import { terminalStartSchemas } from './terminal-start.schema.js';
import { defineTool, observeOptions, type ToolContext } from './tool.js';

const DEFAULT_EXIT_TIMEOUT_MS = 60_000;

export const terminalStart = defineTool({
  name: 'terminal_start',
  title: 'Start a terminal',
  description: [
    'Run a command in a new real terminal (PTY + xterm emulator) and return its screen once it settles, with the sessionId for the other terminal_* tools.',
    'Use it for anything interactive or full-screen that a plain shell tool would hang on: prompts (npm init, drizzle-kit, git add -p), REPLs (python3, node), editors and TUIs (vim, less, htop), ssh, installers.',
    'The command runs as `shell -l -c command` (login:false drops -l); without a command you get an interactive shell. Example: {"command":"python3","cols":100,"rows":30}.',
    'For a command that needs a terminal but no answers, waitForExit runs it to completion (timeoutMs) and autoClose frees the session afterwards; scrollbackLines adds its history.',
    'Returns {sessionId, snapshot}; the snapshot has the screen rows, cursor, styles, status (running/exited with exitCode or signal) and settled.',
  ].join(' '),
  annotations: {
    title: 'Start a terminal',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  inputSchema: () => terminalStartSchemas().StartInputSchema,
  outputSchema: () => terminalStartSchemas().StartOutputSchema,
  async handler(args, ctx) {
    checkSettleTiming(args.settleMs, args.settleTimeoutMs, ctx.config.quietMs);
    if (args.timeoutMs !== undefined && !args.waitForExit) {
      throw new TerminalError(
        'INVALID_ARGUMENT',
        'timeoutMs applies only with waitForExit:true; add it, or bound the first observation with settleTimeoutMs',
        { timeoutMs: args.timeoutMs },
      );
    }
    const plan = planLaunch(args, ctx.launchDefaults);
    const session = await ctx.registry.start({
      plan,
      cols: args.cols ?? ctx.config.defaultCols,
      rows: args.rows ?? ctx.config.defaultRows,
      record: args.record,
    });
    const extra: Record<string, unknown> = session.recording
      ? { recording: session.recording }
      : {};
    if (session.recordingError !== undefined) extra.recordingError = session.recordingError;
    let snapshot: Snapshot;
    try {
      if (args.waitForExit) {
        const timedOut = await runToExit(session, args.timeoutMs ?? DEFAULT_EXIT_TIMEOUT_MS, ctx);
        if (timedOut) extra.timedOut = true;
        await session.whenParsed();
        snapshot = session.snapshot(!timedOut, args.scrollbackLines ?? 0);
      } else {
        snapshot = await session.observe(
          observeOptions(ctx.config, args.settleMs, args.settleTimeoutMs, ctx.signal),
          args.scrollbackLines ?? 0,
        );
      }
    } catch (err) {
      if (err instanceof TerminalError) {
        throw new ToolFailure(err, { sessionId: session.id, ...extra });
      }
      throw err;
    }
    if (args.autoClose) extra.closed = await ctx.registry.close(session.id);
    const notes = [
      extra.timedOut
        ? `still running after ${args.timeoutMs ?? DEFAULT_EXIT_TIMEOUT_MS} ms (timedOut)`
        : '',
      extra.closed ? 'session closed (autoClose)' : '',
      session.recording ? `recording: ${session.recording}` : '',
      session.recordingError !== undefined ? `not recorded: ${session.recordingError}` : '',
    ].filter(Boolean);
    return {
      structured: { sessionId: session.id, snapshot, ...extra },
      text: [formatSnapshot(session.id, snapshot), ...notes].join('\n'),
    };
  },
});

/** Waits for the program to exit; true when it was still running at the timeout. */
async function runToExit(session: Session, timeoutMs: number, ctx: ToolContext): Promise<boolean> {
  try {
    await waitForCondition(
      session,
      { kind: 'exit' },
      {
        timeoutMs,
        signal: ctx.signal,
        onProgress:
          ctx.progress &&
          ((elapsed, total) => ctx.progress?.(elapsed, total, 'waiting for the program to exit')),
      },
    );
    return false;
  } catch (err) {
    if (err instanceof TerminalError && err.code === 'WAIT_TIMEOUT') return true;
    throw err;
  }
}
