/** terminal_resize: change the PTY and the screen size together; the program gets SIGWINCH. */
import { formatSnapshot } from '../render/format.js';
import { resizeSession } from '../session/observe-session.js';
import { terminalResizeSchemas } from './terminal-resize.schema.js';
import { defineTool } from './tool.js';

export const terminalResize = defineTool({
  name: 'terminal_resize',
  title: 'Resize a terminal',
  description: [
    'Resize a running terminal to cols x rows (2-500 x 1-200): the PTY and the emulated screen change together and the program receives SIGWINCH, as when a window is resized.',
    'Returns the snapshot at the new size once it settles. Queued behind any input batch still running on the session.',
  ].join(' '),
  annotations: {
    title: 'Resize a terminal',
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  inputSchema: () => terminalResizeSchemas().ResizeInputSchema,
  outputSchema: () => terminalResizeSchemas().ResizeOutputSchema,
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
