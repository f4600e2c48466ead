/** terminal_list's input (none) and output schemas. @see spec/tools.md (terminal_list) */
import { z } from 'zod';
import { commonSchemas, lazy } from '../shared/contract/common.js';
import { sessionInfoSchema } from '../shared/contract/session-info.js';

/** terminal_list's schemas, built once on first use (validating a call), not at start-up. */
export const terminalListSchemas = lazy(() => ({
  ListInputSchema: z.strictObject({}),
  ListOutputSchema: z.strictObject({
    sessions: z.array(sessionInfoSchema()).optional(),
    ...commonSchemas().errorField,
  }),
}));

type Schemas = ReturnType<typeof terminalListSchemas>;
export type ListInput = z.output<Schemas['ListInputSchema']>;
export type ListOutput = z.output<Schemas['ListOutputSchema']>;
