/** terminal_list: every retained session, running or exited. */
import { formatSessionList } from '../render/format.js';
import { terminalListSchemas } from './terminal-list.schema.js';
import { defineTool } from './tool.js';

export const terminalList = defineTool({
  name: 'terminal_list',
  title: 'List terminals',
  description:
    'List the retained terminal sessions with id, command, working directory, size, status (running, or exited with exitCode or signal) and pid. Exited sessions count toward the session limit (8 by default) until terminal_close.',
  annotations: {
    title: 'List terminals',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  inputSchema: () => terminalListSchemas().ListInputSchema,
  outputSchema: () => terminalListSchemas().ListOutputSchema,
  async handler(_args, ctx) {
    const sessions = ctx.registry.list();
    return { structured: { sessions }, text: formatSessionList(sessions) };
  },
});
