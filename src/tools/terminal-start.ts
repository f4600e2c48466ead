/**
 * terminal_start: spawn a program in a new terminal and return its first settled snapshot; or,
 * with waitForExit, run it to completion (a one-shot run) and optionally close the session.
 */

import { formatSnapshot } from '../render/format.js';
import { DEFAULT_EXIT_TIMEOUT_MS, recordingFields, runStart } from '../session/run-start.js';
import { observationResultSchemas } from '../shared/contract/observation-result.js';
import { formatDuration } from '../shared/duration.js';
import { terminalStartSchemas } from './terminal-start.schema.js';
import { defineTool } from './tool.js';

/** How a person can answer instead of the agent, when attach is on. */
function personHint(command: string | undefined): string {
  return command
    ? `; if a person must answer (a password), ask your user to run \`${command}\` and type it`
    : '';
}

export const terminalStart = defineTool({
  name: 'terminal_start',
  title: 'Start a terminal',
  description: [
    'Run a command in a real terminal (PTY), for what a plain shell tool hangs on: prompts, REPLs, TUIs, ssh.',
    'Returns the settled screen and a sessionId.',
    'One-shot run: waitForExit with autoClose.',
  ].join(' '),
  annotations: {
    title: 'Start a terminal',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  inputSchema: () => terminalStartSchemas().StartInputSchema,
  outputSchema: () => observationResultSchemas().ObservationResultSchema,
  async handler(args, ctx) {
    const outcome = await runStart(ctx.registry, args, {
      defaults: ctx.config,
      launch: ctx.launchDefaults,
      signal: ctx.signal,
      client: ctx.clientName?.(),
      onProgress: ctx.progress,
    });
    const { session, snapshot, timedOut, inputRequired, closed } = outcome;
    const recording = recordingFields(session);
    const notes = [
      timedOut
        ? `still running after ${formatDuration(args.timeoutMs ?? DEFAULT_EXIT_TIMEOUT_MS)} (timedOut)`
        : '',
      inputRequired
        ? `waiting for input (inputRequired): answer it with terminal_input (stopOnInput:false waits for the exit)${personHint(ctx.attachCommand?.(session.id))}`
        : '',
      closed ? 'session closed (autoClose)' : '',
      closed === false && inputRequired
        ? 'session left open (autoClose closes only a run that exited or timed out): close it with terminal_close when done'
        : '',
      session.recording ? `recording: ${session.recording}` : '',
      session.recordingError !== undefined ? `not recorded: ${session.recordingError}` : '',
    ].filter(Boolean);
    return {
      structured: {
        sessionId: session.id,
        snapshot,
        ...recording,
        ...(timedOut ? { timedOut } : {}),
        ...(inputRequired ? { inputRequired } : {}),
        ...(closed === undefined ? {} : { closed }),
      },
      text: [formatSnapshot(session.id, snapshot), ...notes].join('\n'),
    };
  },
});
