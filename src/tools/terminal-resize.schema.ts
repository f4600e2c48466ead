/**
 * terminal_resize's input schema and its output, the shared observation output; built on first
 * use. @see spec/tools.md (terminal_resize)
 */
import { z } from 'zod';
import { LIMITS } from '../shared/config.js';
import { commonSchemas, lazy } from '../shared/contract/common.js';

/** terminal_resize's schemas, built once on first use (validating a call), not at start-up. */
export const terminalResizeSchemas = lazy(() => {
  const { SessionIdSchema, settleFields } = commonSchemas();
  const ResizeInputSchema = z.strictObject({
    sessionId: SessionIdSchema,
    cols: z.int().min(LIMITS.minCols).max(LIMITS.maxCols).describe('New width.'),
    rows: z.int().min(LIMITS.minRows).max(LIMITS.maxRows).describe('New height.'),
    ...settleFields,
  });
  return { ResizeInputSchema };
});

type Schemas = ReturnType<typeof terminalResizeSchemas>;
export type ResizeInput = z.output<Schemas['ResizeInputSchema']>;
