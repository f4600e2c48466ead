/** terminal_start's input and output schemas. @see spec/tools.md (terminal_start) */
import { z } from 'zod';
import { LIMITS } from '../config.js';
import { commonSchemas, lazy } from '../contract/common.js';
import { observationResultSchemas } from '../contract/observation-result.js';

const noNul = (what: string) =>
  z.string().refine((s) => !s.includes('\0'), { message: `${what} must not contain NUL` });

/** terminal_start's schemas, built once on first use (validating a call), not at start-up. */
export const terminalStartSchemas = lazy(() => {
  const { settleFields } = commonSchemas();
  const envName = z
    .string()
    .regex(/^[^=\0]+$/, 'an environment variable name must be non-empty without = or NUL');

  const StartInputSchema = z.strictObject({
    command: noNul('command')
      .min(1)
      .max(LIMITS.maxPayloadBytes)
      .optional()
      .describe(
        'Shell command line to run, e.g. "npm init" or "python3". Omit to start an interactive shell.',
      ),
    cols: z
      .int()
      .min(LIMITS.minCols)
      .max(LIMITS.maxCols)
      .optional()
      .describe('Terminal width in columns (2-500, default 120).'),
    rows: z
      .int()
      .min(LIMITS.minRows)
      .max(LIMITS.maxRows)
      .optional()
      .describe('Terminal height in rows (1-200, default 40).'),
    cwd: noNul('cwd').min(1).optional().describe("Working directory (default: the server's)."),
    env: z
      .record(envName, noNul('an environment value'))
      .optional()
      .describe(
        'Environment overrides on top of the inherited environment. TERM is always xterm-256color.',
      ),
    unsetEnv: z
      .array(envName)
      .max(256)
      .optional()
      .describe('Inherited environment variables to remove, e.g. ["VIRTUAL_ENV"].'),
    shell: noNul('shell')
      .min(1)
      .optional()
      .describe('Shell that runs the command (default: $SHELL, then /bin/sh).'),
    login: z
      .boolean()
      .optional()
      .describe('Run the shell as a login shell with -l (default true).'),
    waitForExit: z
      .boolean()
      .optional()
      .describe(
        'Run to completion: wait until the program exits (up to timeoutMs) instead of until the screen settles.',
      ),
    timeoutMs: z
      .int()
      .min(1)
      .max(LIMITS.maxWaitMs)
      .optional()
      .describe('With waitForExit: longest wait, in ms (default 60000); then timedOut:true.'),
    autoClose: z
      .boolean()
      .optional()
      .describe(
        'With waitForExit: close the session (ending anything still running) after the result.',
      ),
    scrollbackLines: z
      .int()
      .min(0)
      .max(LIMITS.maxScrollbackRequest)
      .optional()
      .describe('Also return up to this many lines of history (useful with waitForExit).'),
    record: z
      .boolean()
      .optional()
      .describe(
        'Record the session as an asciicast v2 file (asciinema play), readable only by the user; it holds all typed input, passwords included. Returns its path as recording, or recordingError.',
      ),
    ...settleFields,
  });

  return {
    StartInputSchema,
    StartOutputSchema: observationResultSchemas().ObservationResultSchema,
  };
});

type Schemas = ReturnType<typeof terminalStartSchemas>;
export type StartInput = z.output<Schemas['StartInputSchema']>;
export type StartOutput = z.output<Schemas['StartOutputSchema']>;
