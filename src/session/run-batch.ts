/**
 * Runs a validated batch of input actions against a session, in order, inside the session's
 * queue. Encodes each key, mouse event and paste for the modes in force when it is sent, pauses
 * only where a wait action says so, and reports progress (actionsCompleted, inputSent,
 * failedActionIndex) whether the batch finishes or fails.
 */

import {
  type Action,
  type ActionAt,
  actionAt,
  actionError,
  payloadBytes,
} from '../input/actions.js';
import { encodeKey } from '../input/encode-key.js';
import { encodeMouse } from '../input/encode-mouse.js';
import { encodeFocus, encodePaste, encodeText } from '../input/encode-text.js';
import type { TerminalModes } from '../screen/terminal-modes.js';
import type { WaitReport } from '../shared/contract/progress.js';
import { type TerminalError, throwIfAborted, toTerminalError } from '../shared/errors.js';
import {
  sendsSignalCharacter,
  whenReadingAgain,
  whenShellCanTakeInterrupt,
} from './after-interrupt.js';
import { checkActions, mouseError, mouseReports } from './check-batch.js';
import { type ObserveDefaults, observeOptions, settleSession } from './observation.js';
import { notReadyError } from './readiness.js';
import type { Session } from './session.js';
import { sleep } from './sleep.js';
import { waitForCondition } from './wait.js';
import { conditionSubject, describeCondition, waitOutcomeError } from './wait-errors.js';

export interface BatchProgress {
  actionsCompleted: number;
  inputSent: boolean;
  /** One entry per wait for a condition (settle, pattern, exit), in order. */
  waits: WaitReport[];
}

export interface BatchOptions {
  readonly signal: AbortSignal;
  /** Timing of settle waits that omit settleMs / settleTimeoutMs. */
  readonly defaults: ObserveDefaults;
  /** How errors name an action (default `actions[i]`). */
  readonly at?: ((index: number) => ActionAt) | undefined;
  /** Reports progress of long waits (the client asked for progress notifications). */
  readonly onProgress?: ((elapsedMs: number, timeoutMs: number, what: string) => void) | undefined;
  /**
   * Aborts when no one can read the batch's result any more (its HTTP connection closed). The
   * batch still sends all its input, with the waits between; the waits after its last input,
   * which would only delay the session's next call, end then.
   */
  readonly abandoned?: AbortSignal | undefined;
}

/** A signal that aborts when either does. */
export function eitherSignal(a: AbortSignal, b: AbortSignal | undefined): AbortSignal {
  if (b === undefined || a.aborted) return a;
  if (b.aborted) return b;
  const both = new AbortController();
  const abort = () => {
    both.abort();
    a.removeEventListener('abort', abort);
    b.removeEventListener('abort', abort);
  };
  a.addEventListener('abort', abort, { once: true });
  b.addEventListener('abort', abort, { once: true });
  return both.signal;
}

/** Progress as result fields; `waits` only when the batch waited for a condition. */
export function progressFields(progress: BatchProgress): Record<string, unknown> {
  const { waits, ...rest } = progress;
  return waits.length > 0 ? { ...rest, waits: [...waits] } : rest;
}

export async function runBatch(
  session: Session,
  actions: readonly Action[],
  options: BatchOptions,
): Promise<BatchProgress> {
  const progress: BatchProgress = { actionsCompleted: 0, inputSent: false, waits: [] };
  try {
    // A batch that sends at once holds until the program is ready, before its keys and clicks are
    // checked against the modes the ready program is in. One that waits first holds, if it must,
    // at its first sending action (its wait for a prompt usually makes the program ready).
    if (actions[0] && !PAUSES.has(actions[0].type)) await holdUntilReady(session, options.signal);
    // Again now that it runs: a batch queued behind others (or a resize) meets the modes and
    // size they left, and must still send nothing when a key or click no longer fits them.
    // (A program that has exited meanwhile is met action by action: an exit wait still passes.)
    if (session.pendingBytes > 0) await session.screen.whenParsed();
    if (session.status === 'running') checkActions(session, actions, options.at ?? actionAt);
    const payload = payloadBytes(actions);
    session.input.assertRoom(payload);
    session.input.claim(payload);
  } catch (err) {
    throw failedBeforeSending(err).withPartial(progressFields(progress));
  }
  try {
    /**
     * The output received when the last sending action sent a signal character (Ctrl+C): the
     * next sending action waits for the program to handle it.
     */
    let interrupted: number | undefined;
    const lastSending = actions.findLastIndex((a) => !PAUSES.has(a.type));
    for (let i = 0; i < actions.length; i++) {
      const action = actions[i] as Action;
      const trailing = i > lastSending && options.abandoned !== undefined;
      if (trailing && options.abandoned?.aborted) break;
      // A person's keystrokes wait while a run of sending actions goes out, and reach the
      // program at each of the batch's waits (they may be the answer it waits for) and at its end.
      if (PAUSES.has(action.type)) session.input.endAgentRun();
      else session.input.beginAgentRun();
      try {
        throwIfAborted(options.signal);
        if (!PAUSES.has(action.type)) {
          await holdUntilReady(session, options.signal);
          if (interrupted !== undefined) {
            await whenReadingAgain(session, interrupted, options.signal);
          }
          interrupted = undefined;
        }
        const actionOptions = trailing
          ? { ...options, signal: eitherSignal(options.signal, options.abandoned) }
          : options;
        const sentSignal = await runAction(session, action, i, progress, actionOptions);
        if (sentSignal !== undefined) interrupted = sentSignal;
        progress.actionsCompleted++;
      } catch (err) {
        if (trailing && options.abandoned?.aborted && !options.signal.aborted) break;
        throw toTerminalError(err, `action ${i}`).withPartial({
          ...progressFields(progress),
          failedActionIndex: i,
        });
      }
    }
  } finally {
    session.input.release();
    session.input.endAgentRun();
  }
  return progress;
}

/**
 * Type-ahead: input for a program that is not ready yet (a shell still reading its startup
 * files, a TUI not yet drawn) waits until it is, at most to the end of its start-up window, so it
 * reaches a program that reads it instead of breaking the start-up or being flushed. NOT_READY,
 * sending nothing, when the window ends first.
 */
async function holdUntilReady(session: Session, signal: AbortSignal): Promise<void> {
  if (session.status !== 'running' || session.readiness.mayTakeInput()) return;
  const began = performance.now();
  if (await session.readiness.whenReady(signal)) return;
  throw notReadyError(session.id, performance.now() - began, session.foreground());
}

/** A check that failed before anything was sent, naming the action it found (failedActionIndex). */
export function failedBeforeSending(err: unknown): TerminalError {
  const error = toTerminalError(err, 'terminal_input');
  const index = error.details.actionIndex;
  return typeof index === 'number' ? error.withPartial({ failedActionIndex: index }) : error;
}

/** Actions that send nothing and may take time: a person's input is not held across them. */
const PAUSES: ReadonlySet<Action['type']> = new Set(['wait', 'observe', 'expect']);

/**
 * Runs one action. When it sent one of the terminal's signal characters (Ctrl+C), returns the
 * bytes of output received just before: the next sending action waits for the program to handle
 * it (after-interrupt.ts).
 */
async function runAction(
  session: Session,
  action: Action,
  index: number,
  progress: BatchProgress,
  options: BatchOptions,
): Promise<number | undefined> {
  const at = options.at ?? actionAt;
  const send = async (bytes: Uint8Array): Promise<number | undefined> => {
    const interrupts = sendsSignalCharacter(bytes);
    if (interrupts) {
      await whenShellCanTakeInterrupt(session, options.signal);
      session.assertRunning();
    }
    const outputBytes = session.outputBytes;
    session.send(bytes);
    if (bytes.length > 0) progress.inputSent = true;
    return interrupts ? outputBytes : undefined;
  };
  switch (action.type) {
    case 'text':
      session.assertRunning();
      return send(encodeText(action.text));
    case 'raw':
      session.assertRunning();
      return send(action.bytes);
    case 'paste':
      return send(encodePaste(action.text, (await currentModes(session)).bracketedPaste));
    case 'key': {
      const encoded = encodeKey(action.press, await currentModes(session));
      if (!encoded.ok) throw actionError(at(index), encoded.reason, 'INVALID_KEY');
      return send(Buffer.from(encoded.bytes, 'latin1'));
    }
    case 'mouse': {
      const modes = await currentModes(session);
      for (const report of mouseReports(action, modes.mouseTracking)) {
        const encoded = encodeMouse(report, modes);
        if (!encoded.ok) throw mouseError(at(index), encoded.code, encoded.reason);
        await send(encoded.bytes);
      }
      return undefined;
    }
    case 'focus': {
      const modes = await currentModes(session);
      if (modes.focusEvents) await send(encodeFocus(action.focused));
      return undefined;
    }
    case 'wait':
      await sleep(action.durationMs, options.signal);
      return undefined;
    case 'observe': {
      const result = await settleSession(
        session,
        observeOptions(options.defaults, action, options.signal),
      );
      progress.waits.push({
        actionIndex: index,
        reason: result.reason,
        elapsedMs: result.elapsedMs,
      });
      return;
    }
    case 'expect': {
      const what = describeCondition(action.condition);
      const outcome = await waitForCondition(session, action.condition, {
        timeoutMs: action.timeoutMs,
        stopOnInput: action.stopOnInput,
        signal: options.signal,
        onProgress:
          options.onProgress && ((e, t) => options.onProgress?.(e, t, `waiting for ${what}`)),
      });
      const subject = conditionSubject(action.condition, session.screen.commandMarkSeq > 0);
      const failed = waitOutcomeError(outcome, subject, action.timeoutMs);
      if (failed) throw failed;
      progress.waits.push({
        actionIndex: index,
        reason: outcome.reason,
        elapsedMs: Math.round(outcome.elapsedMs),
        ...(outcome.match ? { match: outcome.match } : {}),
        ...(outcome.command ? { command: outcome.command } : {}),
      });
      return;
    }
    default:
      return action satisfies never;
  }
}

/** The modes after parsing what has arrived, so an encoding follows the program's latest request. */
async function currentModes(session: Session): Promise<TerminalModes> {
  session.assertRunning();
  if (session.pendingBytes > 0) await session.screen.whenParsed();
  session.assertRunning();
  return session.screen.modes();
}
