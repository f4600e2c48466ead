/** terminal_start's input and output schemas. @see spec/tools.md (terminal_start) */
import { z } from 'zod';
import { LIMITS } from '../shared/config.js';
import { commonSchemas, lazy } from '../shared/contract/common.js';

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
      .describe('Run by `shell -l -c`; omit for an interactive shell.'),
    cols: z.int().min(LIMITS.minCols).max(LIMITS.maxCols).optional().describe('Default 120.'),
    rows: z.int().min(LIMITS.minRows).max(LIMITS.maxRows).optional().describe('Default 40.'),
    cwd: noNul('cwd').min(1).optional().describe("Default: the server's. ~ = HOME"),
    env: z
      .record(envName, noNul('an environment value'))
      .optional()
      .describe('Variables to set over the inherited ones.'),
    unsetEnv: z.array(envName).max(256).optional().describe('Inherited variables to remove.'),
    shell: noNul('shell').min(1).optional().describe('Default: $SHELL, else /bin/sh.'),
    login: z.boolean().optional().describe('false drops -l.'),
    waitForExit: z.boolean().optional().describe('Return at exit, not when the screen settles.'),
    timeoutMs: z
      .int()
      .min(1)
      .max(LIMITS.maxWaitMs)
      .optional()
      .describe('waitForExit: then timedOut (default 60000).'),
    stopOnInput: z.boolean().optional().describe('waitForExit: false: no inputRequired.'),
    autoClose: z.boolean().optional().describe('waitForExit: then close it, ending what runs.'),
    scrollbackLines: z
      .int()
      .min(0)
      .max(LIMITS.maxScrollbackRequest)
      .optional()
      .describe('Also return this many lines above the screen.'),
    record: z
      .boolean()
      .optional()
      .describe('Save an asciicast (path: recording); it holds all input, passwords too.'),
    ...settleFields,
  });

  return { StartInputSchema };
});

type Schemas = ReturnType<typeof terminalStartSchemas>;
export type StartInput = z.output<Schemas['StartInputSchema']>;
