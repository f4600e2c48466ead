/**
 * How far a terminal_input batch got: the report of each wait for a condition. Shared by the
 * tool's output schema and the session layer that fills it in.
 */
import { z } from 'zod';
import { lazy } from './common.js';

/** The progress schemas, built once on first use. */
export const progressSchemas = lazy(() => {
  const WaitReportSchema = z.strictObject({
    actionIndex: z.int(),
    reason: z.string(),
    elapsedMs: z.int(),
    match: z
      .strictObject({
        text: z.string(),
        line: z.int().optional(),
        row: z.int().optional(),
        column: z.int().optional(),
      })
      .optional(),
    command: z
      .strictObject({
        exitCode: z.int().optional(),
        exitCodeUnknown: z.string().optional(),
        fromLine: z.int().optional(),
        toLine: z.int().optional(),
      })
      .optional(),
  });
  return { WaitReportSchema };
});

/**
 * How a wait that waited for a condition ended (quiet, input, exited, timeout; matched, gone;
 * finished), with what matched or the command that finished.
 */
export type WaitReport = z.output<ReturnType<typeof progressSchemas>['WaitReportSchema']>;
