/**
 * terminal_snapshot's input schema (history, region, find) and its output, the shared
 * observation output; built on first use. @see spec/tools.md (terminal_snapshot)
 */
import { z } from 'zod';
import { LIMITS } from '../shared/config.js';
import { commonSchemas, lazy } from '../shared/contract/common.js';

/** terminal_snapshot's schemas, built once on first use (validating a call), not at start-up. */
export const terminalSnapshotSchemas = lazy(() => {
  const { SessionIdSchema, settleFields } = commonSchemas();

  const RegionSchema = z
    .strictObject({
      row: z.int().min(1).max(LIMITS.maxRows).describe('First row.'),
      column: z.int().min(1).max(LIMITS.maxCols).describe('First column.'),
      rows: z.int().min(1).max(LIMITS.maxRows).describe('Height.'),
      cols: z.int().min(1).max(LIMITS.maxCols).describe('Width.'),
    })
    .describe("Also return this rectangle's text.");

  const FindSchema = z
    .strictObject({
      text: z.string().min(1).max(4096).optional().describe('Literal text.'),
      pattern: z.string().min(1).max(4096).optional().describe('Or a regex.'),
      ignoreCase: z.boolean().optional().describe('Ignore case.'),
      history: z.int().min(0).optional().describe('And history after this line.'),
    })
    .describe('Also return matches.');

  const SnapshotInputSchema = z.strictObject({
    sessionId: SessionIdSchema,
    scrollbackLines: z
      .int()
      .min(0)
      .max(LIMITS.maxScrollbackRequest)
      .optional()
      .describe('Also return this many lines above the screen.'),
    historySince: z
      .int()
      .min(0)
      .optional()
      .describe(
        'Lines after this line (0: all; a past historyTotal: new ones); more at nextSince.',
      ),
    region: RegionSchema.optional(),
    find: FindSchema.optional(),
    ...settleFields,
  });

  return { SnapshotInputSchema };
});

type Schemas = ReturnType<typeof terminalSnapshotSchemas>;
export type SnapshotInput = z.output<Schemas['SnapshotInputSchema']>;
