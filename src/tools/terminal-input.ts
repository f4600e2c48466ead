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
    'Send an ordered batch of input to a terminal session, then return its screen once it settles.',
    'Action types: text (exact Unicode), paste (bracketed when the program enabled it), key (named key or printable ASCII character, with Ctrl/Alt/Shift modifiers), mouse (click/press/release/wheel at a 1-based row and column; the program must enable mouse reporting), focus, raw (bytes 0-255), wait (durationMs pause, or wait for the screen to settle).',
    'Example: [{"type":"text","text":"my-app"},{"type":"key","key":"Enter"}] answers a prompt; [{"type":"key","key":"c","modifiers":["Ctrl"]}] interrupts.',
    'Actions are sent back to back; add a wait action between them when the program must react first.',
    'The whole batch is validated before anything is sent. Returns actionsCompleted, inputSent and the snapshot; on failure also failedActionIndex, so check them before retrying.',
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
