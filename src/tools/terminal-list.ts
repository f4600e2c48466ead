/** terminal_list: every retained session, running or exited. */
import { formatSessionList } from '../render/format.js';
import { terminalListSchemas } from './terminal-list.schema.js';
import { defineTool } from './tool.js';

export const terminalList = defineTool({
  name: 'terminal_list',
  title: 'List terminals',
  description: [
    'List sessions: id, command, cwd, size, status, exit code, pid.',
    'Exited ones count toward the limit until closed.',
  ].join(' '),
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
    const sessions = ctx.registry.list().map((info) => {
      const presence = ctx.registry.find(info.sessionId)?.presence.take();
      const attach = ctx.attachCommand?.(info.sessionId);
      return {
        ...info,
        ...(presence?.watchers ? { watchers: presence.watchers } : {}),
        ...(presence?.personTyped ? { personTyped: true } : {}),
        ...(attach ? { attach } : {}),
      };
    });
    return { structured: { sessions }, text: formatSessionList(sessions, ctx.clientName?.()) };
  },
});
