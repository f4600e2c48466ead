/**
 * terminal_input's input and output schemas, built on first use; the action vocabulary itself is
 * input/action-schema.ts. @see spec/tools.md (terminal_input)
 */
import { z } from 'zod';
import { actionSchemas } from '../input/action-schema.js';
import { LIMITS } from '../shared/config.js';
import { commonSchemas, lazy } from '../shared/contract/common.js';

/** terminal_input's schemas, built once on first use (validating a call), not at start-up. */
export const terminalInputSchemas = lazy(() => {
  const { SessionIdSchema, settleFields } = commonSchemas();

  const InputInputSchema = z.strictObject({
    sessionId: SessionIdSchema,
    actions: z
      .array(actionSchemas().ActionSchema)
      .min(1)
      .max(LIMITS.maxActions)
      .describe('1 MiB of text, paste and raw at most.'),
    ...settleFields,
  });

  return { InputInputSchema };
});

type Schemas = ReturnType<typeof terminalInputSchemas>;
export type InputInput = z.output<Schemas['InputInputSchema']>;
