/** terminal_input: run an ordered batch of input actions, then return the settled screen. */
import { LIMITS } from '../config.js';
import { TerminalError } from '../errors.js';
import { type Action, checkSettleTiming, parseAction, payloadBytes } from '../input/actions.js';
import { BatchError, type BatchProgress, precheckBatch, runBatch } from '../session/run-batch.js';
import type { Session } from '../session/session.js';
import { failureWithSnapshot } from './failure.js';
import { formatProgress, formatSnapshot } from './format.js';
import { ToolFailure } from './result.js';
import { terminalInputSchemas } from './terminal-input.schema.js';
import { defineTool, observeOptions } from './tool.js';

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
  async handler(args, ctx) {
    const notStarted = { actionsCompleted: 0, inputSent: false };
    let session: Session;
    try {
      session = ctx.registry.get(args.sessionId);
    } catch (err) {
      if (err instanceof TerminalError) {
        throw new ToolFailure(err, { sessionId: args.sessionId, ...notStarted });
      }
      throw err;
    }
    let actions: Action[];
    try {
      checkSettleTiming(args.settleMs, args.settleTimeoutMs, ctx.config.quietMs);
      actions = args.actions.map((wire, i) => parseAction(wire, i, ctx.config.quietMs));
      const payload = payloadBytes(actions);
      if (payload > LIMITS.maxPayloadBytes) {
        throw new TerminalError(
          'INVALID_ARGUMENT',
          `the batch carries ${payload} bytes of text, paste and raw input, over the ${LIMITS.maxPayloadBytes}-byte limit; split it into several calls`,
          { payloadBytes: payload, limitBytes: LIMITS.maxPayloadBytes },
        );
      }
      precheckBatch(session, actions);
    } catch (err) {
      if (err instanceof TerminalError) {
        const index = err.details.actionIndex;
        throw failureWithSnapshot(err, session, {
          ...notStarted,
          ...(typeof index === 'number' ? { failedActionIndex: index } : {}),
        });
      }
      throw err;
    }
    let progress: BatchProgress;
    try {
      progress = await session.queue.run(
        (signal) =>
          runBatch(session, actions, {
            signal,
            resolveObserve: (settleMs, settleTimeoutMs) =>
              observeOptions(ctx.config, settleMs, settleTimeoutMs),
            onProgress:
              ctx.progress && ((elapsed, total, what) => ctx.progress?.(elapsed, total, what)),
          }),
        ctx.signal,
      );
    } catch (err) {
      if (err instanceof BatchError) {
        throw failureWithSnapshot(err.error, session, {
          ...withoutEmptyWaits(err.progress),
          failedActionIndex: err.failedActionIndex,
        });
      }
      if (err instanceof TerminalError) throw failureWithSnapshot(err, session, notStarted);
      throw err;
    }
    try {
      const snapshot = await session.observe(
        observeOptions(ctx.config, args.settleMs, args.settleTimeoutMs, ctx.signal),
      );
      return {
        structured: { sessionId: session.id, ...withoutEmptyWaits(progress), snapshot },
        text: `${formatProgress(progress)}\n${formatSnapshot(session.id, snapshot)}`,
      };
    } catch (err) {
      if (err instanceof TerminalError) {
        throw failureWithSnapshot(err, session, { ...withoutEmptyWaits(progress) });
      }
      throw err;
    }
  },
});

/** The progress fields of a result; `waits` only when the batch waited for a condition. */
function withoutEmptyWaits(progress: BatchProgress): Record<string, unknown> {
  const { waits, ...rest } = progress;
  return waits.length > 0 ? { ...rest, waits } : rest;
}
