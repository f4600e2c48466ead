/**
 * terminal_snapshot's input schema (history, region, find) and its output, the shared
 * observation output; built on first use. @see spec/tools.md (terminal_snapshot)
 */
import { z } from 'zod';
import { LIMITS } from '../config.js';
import { commonSchemas, lazy } from '../contract/common.js';
import { observationResultSchemas } from '../contract/observation-result.js';

/** terminal_snapshot's schemas, built once on first use (validating a call), not at start-up. */
export const terminalSnapshotSchemas = lazy(() => {
  const { SessionIdSchema, settleFields } = commonSchemas();

  const RegionSchema = z
    .strictObject({
      row: z.int().min(1).max(LIMITS.maxRows).describe('First row, 1-based.'),
      column: z.int().min(1).max(LIMITS.maxCols).describe('First column, 1-based.'),
      rows: z.int().min(1).max(LIMITS.maxRows).describe('Number of rows.'),
      cols: z.int().min(1).max(LIMITS.maxCols).describe('Number of columns.'),
    })
    .describe(
      'A rectangle of the screen, returned as snapshot.region (wide characters count two columns).',
    );

  const FindSchema = z
    .strictObject({
      text: z.string().min(1).max(4096).optional().describe('Literal text to find.'),
      pattern: z.string().min(1).max(4096).optional().describe('Or a regular expression.'),
      ignoreCase: z.boolean().optional(),
    })
    .describe('Find text on the screen: snapshot.matches lists each match with row and column.');

  const SnapshotInputSchema = z.strictObject({
    sessionId: SessionIdSchema,
    scrollbackLines: z
      .int()
      .min(0)
      .max(LIMITS.maxScrollbackRequest)
      .optional()
      .describe(
        'Also return up to this many lines of history above the screen (0-2000, default 0).',
      ),
    historySince: z
      .int()
      .min(0)
      .optional()
      .describe(
        'Return the lines that scrolled into history after this count (snapshot.historyTotal of an earlier snapshot; 0 for all), at most 2000: read a long log once, line by line.',
      ),
    region: RegionSchema.optional(),
    find: FindSchema.optional(),
    ...settleFields,
  });

  return {
    SnapshotInputSchema,
    SnapshotOutputSchema: observationResultSchemas().ObservationResultSchema,
  };
});

type Schemas = ReturnType<typeof terminalSnapshotSchemas>;
export type SnapshotInput = z.output<Schemas['SnapshotInputSchema']>;
export type SnapshotOutput = z.output<Schemas['SnapshotOutputSchema']>;
