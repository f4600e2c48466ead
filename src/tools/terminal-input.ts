/** terminal_input: run an ordered batch of input actions, then return the settled screen. */
import { formatProgress, formatSnapshot } from '../render/format.js';
import { progressFields } from '../session/run-batch.js';
import { runInput } from '../session/run-input.js';
import { terminalInputSchemas } from './terminal-input.schema.js';
import { defineTool } from './tool.js';

export const terminalInput = defineTool({
  name: 'terminal_input',
  title: 'Type, press keys, click',
  description: [
    'Send actions in order, then return the screen once it settles.',
    'Actions go back to back; between them, wait:',
    '{"type":"wait"} until the screen settles; with pattern, until a regex matches (gone: until it stops); with exit:true, until the program exits.',
    'All are checked before any is sent; after a failure read failedActionIndex before retrying.',
  ].join(' '),
  annotations: {
    title: 'Type, press keys, click',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  inputSchema: () => terminalInputSchemas().InputInputSchema,
  outputSchema: () => terminalInputSchemas().InputOutputSchema,
  failureFields: { actionsCompleted: 0, inputSent: false },
  async handler(args, ctx) {
    const session = ctx.registry.get(args.sessionId);
    const { progress, snapshot } = await runInput(session, args, {
      defaults: ctx.config,
      signal: ctx.signal,
      onProgress: ctx.progress,
    });
    return {
      structured: { sessionId: session.id, ...progressFields(progress), snapshot },
      text: `${formatProgress(progress)}\n${formatSnapshot(session.id, snapshot)}`,
    };
  },
});
