/**
 * Running input end to end, for terminal_input and `agent-tty test` alike: validate the whole
 * batch (fields per action type, settle timing, the 1 MiB payload bound, keys and mouse events
 * against the program's current modes) before anything is sent, queue it behind the session's
 * earlier work, run it (run-batch.ts), then observe the settled screen. Every failure carries the
 * progress made (actionsCompleted, inputSent, failedActionIndex) and the latest screen.
 * @see spec/tools.md (terminal_input)
 */

import type { WireAction } from '../input/action-schema.js';
import {
  type Action,
  type ActionAt,
  actionAt,
  parseAction,
  payloadBytes,
} from '../input/actions.js';
import { LIMITS } from '../shared/config.js';
import { TerminalError } from '../shared/errors.js';
import { precheckBatch } from './check-batch.js';
import { withLatestScreen } from './latest-screen.js';
import {
  checkSettleTiming,
  type ObserveDefaults,
  observeOptions,
  observeSession,
  type SettleRequest,
} from './observation.js';
import { type BatchProgress, failedBeforeSending, progressFields, runBatch } from './run-batch.js';
import type { Session, Snapshot } from './session.js';

export interface InputRequest extends SettleRequest {
  readonly actions: readonly WireAction[];
}

export interface InputOptions {
  readonly defaults: ObserveDefaults;
  /** The request's signal: the client cancelled. */
  readonly signal?: AbortSignal | undefined;
  /** Reports progress of long waits (the client asked for progress notifications). */
  readonly onProgress?: ((elapsedMs: number, timeoutMs: number, what: string) => void) | undefined;
  /** How errors name an action (default `actions[i]`). */
  readonly at?: ((index: number) => ActionAt) | undefined;
  /** Aborts when no one can read the result any more (BatchOptions.abandoned). */
  readonly abandoned?: AbortSignal | undefined;
}

/** Progress before anything was sent. */
const NOT_STARTED = { actionsCompleted: 0, inputSent: false };

/**
 * Runs a batch of wire actions on `session`, then returns the settled screen; throws a
 * TerminalError carrying the progress made and the latest screen.
 */
export async function runInput(
  session: Session,
  request: InputRequest,
  options: InputOptions,
): Promise<{ readonly progress: BatchProgress; readonly snapshot: Snapshot }> {
  const progress = await queueInput(session, request, options);
  try {
    const snapshot = await observeSession(
      session,
      observeOptions(options.defaults, request, options.signal),
    );
    return { progress, snapshot };
  } catch (err) {
    throw withLatestScreen(err, session, 'terminal_input').withPartial(progressFields(progress));
  }
}

/**
 * Validates a batch, queues it behind the session's earlier work and runs it; resolves once the
 * last action ran, without waiting for the screen (`agent-tty test` asserts on its own).
 */
export async function queueInput(
  session: Session,
  request: InputRequest,
  options: InputOptions,
): Promise<BatchProgress> {
  try {
    const actions = prepareBatch(session, request, options);
    return await session.queue.run(
      (signal) =>
        runBatch(session, actions, {
          signal,
          defaults: options.defaults,
          at: options.at,
          onProgress: options.onProgress,
          abandoned: options.abandoned,
        }),
      options.signal,
    );
  } catch (err) {
    throw withLatestScreen(err, session, 'terminal_input').withPartial(NOT_STARTED);
  }
}

/** Everything that can be checked before the first byte is sent; the typed actions. */
function prepareBatch(session: Session, request: InputRequest, options: InputOptions): Action[] {
  const at = options.at ?? actionAt;
  try {
    checkSettleTiming(request, options.defaults);
    const actions = request.actions.map((wire, i) => {
      const action = parseAction(wire, at(i));
      if (action.type === 'observe') checkSettleTiming(action, options.defaults, at(i));
      return action;
    });
    const payload = payloadBytes(actions);
    if (payload > LIMITS.maxPayloadBytes) {
      throw new TerminalError(
        'INVALID_ARGUMENT',
        `the batch carries ${payload} bytes of text, paste and raw input, over the ${LIMITS.maxPayloadBytes}-byte limit; split it into several calls`,
        { payloadBytes: payload, limitBytes: LIMITS.maxPayloadBytes },
      );
    }
    precheckBatch(session, actions, at);
    return actions;
  } catch (err) {
    throw failedBeforeSending(err);
  }
}
