/** terminal_resize: change the PTY and the screen size together; the program gets SIGWINCH. */

import { formatSnapshot } from '../render/format.js';
import { resizeSession } from '../session/run-resize.js';
import { observationResultSchemas } from '../shared/contract/observation-result.js';
import { terminalResizeSchemas } from './terminal-resize.schema.js';
import { defineTool } from './tool.js';

export const terminalResize = defineTool({
  name: 'terminal_resize',
  title: 'Resize a terminal',
  description:
    'Resize the PTY and screen together; the program gets SIGWINCH. Returns the settled screen.',
  annotations: {
    title: 'Resize a terminal',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  inputSchema: () => terminalResizeSchemas().ResizeInputSchema,
  outputSchema: () => observationResultSchemas().ObservationResultSchema,
  async handler(args, ctx) {
    const session = ctx.registry.get(args.sessionId);
    const snapshot = await resizeSession(session, args, {
      defaults: ctx.config,
      signal: ctx.signal,
    });
    return {
      structured: { sessionId: session.id, snapshot },
      text: formatSnapshot(session.id, snapshot),
    };
  },
});
