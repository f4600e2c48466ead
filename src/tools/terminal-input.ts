/** terminal_input: run an ordered batch of input actions, then return the settled screen. */

import { formatProgress, formatSnapshot } from '../render/format.js';
import { progressFields } from '../session/run-batch.js';
import { runInput } from '../session/run-input.js';
import { observationResultSchemas } from '../shared/contract/observation-result.js';
import { terminalInputSchemas } from './terminal-input.schema.js';
import { defineTool } from './tool.js';

export const terminalInput = defineTool({
  name: 'terminal_input',
  title: 'Type, press keys, click',
  description: [
    'Send actions in order, then return the settled screen.',
    'Waits: {"type":"wait"} (settle), pattern (a regex; gone: until it leaves), exit:true, command:true (the shell command ends: exit code);',
    'these end early with INPUT_REQUIRED if the program asks something.',
    'All are checked before any is sent; on failure read failedActionIndex before retrying.',
  ].join(' '),
  annotations: {
    title: 'Type, press keys, click',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  inputSchema: () => terminalInputSchemas().InputInputSchema,
  outputSchema: () => observationResultSchemas().ObservationResultSchema,
  failureFields: { actionsCompleted: 0, inputSent: false },
  async handler(args, ctx) {
    const session = ctx.registry.get(args.sessionId);
    const { progress, snapshot } = await runInput(session, args, {
      defaults: ctx.config,
      signal: ctx.signal,
      onProgress: ctx.progress,
      abandoned: ctx.abandoned,
    });
    return {
      structured: { sessionId: session.id, ...progressFields(progress), snapshot },
      text: `${formatProgress(progress)}\n${formatSnapshot(session.id, snapshot)}`,
    };
  },
});
