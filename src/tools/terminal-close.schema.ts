/** terminal_close's input and output schemas. @see spec/tools.md (terminal_close) */
import { z } from 'zod';
import { commonSchemas, lazy } from '../shared/contract/common.js';

/** terminal_close's schemas, built once on first use (validating a call), not at start-up. */
export const terminalCloseSchemas = lazy(() => {
  const { SessionIdSchema, errorField } = commonSchemas();
  return {
    CloseInputSchema: z.strictObject({ sessionId: SessionIdSchema }),
    CloseOutputSchema: z.strictObject({
      sessionId: z.string().optional(),
      closed: z.boolean().optional(),
      ...errorField,
    }),
  };
});

type Schemas = ReturnType<typeof terminalCloseSchemas>;
export type CloseInput = z.output<Schemas['CloseInputSchema']>;
export type CloseOutput = z.output<Schemas['CloseOutputSchema']>;
