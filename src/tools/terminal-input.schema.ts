/**
 * terminal_input's input and output schemas, built on first use; the action vocabulary itself is
 * input/action-schema.ts. @see spec/tools.md (terminal_input)
 */
import { z } from 'zod';
import { LIMITS } from '../config.js';
import { commonSchemas, lazy } from '../contract/common.js';
import { progressSchemas } from '../contract/progress.js';
import { snapshotSchemas } from '../contract/snapshot.js';
import { actionSchemas } from '../input/action-schema.js';

/** terminal_input's schemas, built once on first use (validating a call), not at start-up. */
export const terminalInputSchemas = lazy(() => {
  const { SessionIdSchema, settleFields, errorField } = commonSchemas();
  const { SnapshotSchema } = snapshotSchemas();

  const InputInputSchema = z.strictObject({
    sessionId: SessionIdSchema,
    actions: z
      .array(actionSchemas().ActionSchema)
      .min(1)
      .max(LIMITS.maxActions)
      .describe('At most 1 MiB of text, paste and raw bytes in all.'),
    ...settleFields,
  });

  const { WaitReportSchema } = progressSchemas();

  const InputOutputSchema = z.strictObject({
    sessionId: z.string().optional(),
    actionsCompleted: z.int().optional(),
    inputSent: z.boolean().optional(),
    failedActionIndex: z.int().optional(),
    waits: z
      .array(WaitReportSchema)
      .optional()
      .describe(
        'How each wait for a condition ended: quiet/input/exited/timeout (settle) or matched/gone/exited.',
      ),
    snapshot: SnapshotSchema.optional(),
    ...errorField,
  });

  return { InputInputSchema, InputOutputSchema };
});

type Schemas = ReturnType<typeof terminalInputSchemas>;
export type InputInput = z.output<Schemas['InputInputSchema']>;
export type InputOutput = z.output<Schemas['InputOutputSchema']>;
