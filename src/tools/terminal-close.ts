/** terminal_close: cancel pending work, end every process of the terminal, release it. */
import { terminalCloseSchemas } from './terminal-close.schema.js';
import { defineTool } from './tool.js';

export const terminalClose = defineTool({
  name: 'terminal_close',
  title: 'Close a terminal',
  description: [
    'End a session and all its processes, background jobs too.',
    'An unknown or closed id returns closed:false.',
  ].join(' '),
  annotations: {
    title: 'Close a terminal',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  inputSchema: () => terminalCloseSchemas().CloseInputSchema,
  outputSchema: () => terminalCloseSchemas().CloseOutputSchema,
  async handler(args, ctx) {
    const closed = await ctx.registry.close(args.sessionId);
    return {
      structured: { sessionId: args.sessionId, closed },
      text: closed
        ? `session ${args.sessionId} closed; all its processes have ended`
        : `session ${args.sessionId} was not open (closed:false)`,
    };
  },
});
