/**
 * Observation timing: how long a call waits for the screen to settle. A call's settleMs and
 * settleTimeoutMs, else the configured defaults; a deadline shorter than the quiet interval it
 * must contain is refused before anything is sent. Settlement itself is screen/settle.ts.
 * @see spec/guarantees.md (Settlement)
 */

import type { ActionAt } from '../input/actions.js';
import { type Clock, type SettleResult, systemClock, waitForSettle } from '../screen/settle.js';
import type { Snapshot } from '../shared/contract/snapshot.js';
import { TerminalError } from '../shared/errors.js';
import type { Session } from './session.js';

/** The configured defaults (a Config satisfies this). */
export interface ObserveDefaults {
  readonly quietMs: number;
  readonly settleTimeoutMs: number;
  readonly inputGraceMs: number;
}

/** What a call or a wait action may say about settling. */
export interface SettleRequest {
  readonly settleMs?: number | undefined;
  readonly settleTimeoutMs?: number | undefined;
}

export interface ObserveOptions {
  readonly quietMs: number;
  readonly timeoutMs: number;
  /** Quiet that suffices once the program waits for input; undefined: quiet interval only. */
  readonly inputGraceMs?: number | undefined;
  /**
   * Quiet counts only once the program is ready (session/readiness.ts), within its start-up
   * window; false for settleMs 0 ("at once").
   */
  readonly awaitReady?: boolean | undefined;
  /** settleTimeoutMs was given: the deadline holds from the start of the call, ready or not. */
  readonly strictDeadline?: boolean | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** The timing of one observation; the deadline is at least twice the quiet interval by default. */
export function observeOptions(
  defaults: ObserveDefaults,
  request: SettleRequest,
  signal?: AbortSignal,
): ObserveOptions {
  const quietMs = request.settleMs ?? defaults.quietMs;
  return {
    quietMs,
    timeoutMs: request.settleTimeoutMs ?? Math.max(defaults.settleTimeoutMs, 2 * quietMs),
    // An explicit quiet interval is honoured in full; by default an input wait ends it early.
    inputGraceMs: request.settleMs === undefined ? defaults.inputGraceMs : undefined,
    awaitReady: request.settleMs !== 0,
    strictDeadline: request.settleTimeoutMs !== undefined,
    signal,
  };
}

/**
 * Refuses (INVALID_ARGUMENT) a strict deadline shorter than the quiet interval it must contain:
 * it could never be met. `at` names the wait action that asked for it.
 */
export function checkSettleTiming(
  request: SettleRequest,
  defaults: Pick<ObserveDefaults, 'quietMs'>,
  at?: ActionAt,
): void {
  const { settleMs, settleTimeoutMs } = request;
  const quietMs = settleMs ?? defaults.quietMs;
  if (settleTimeoutMs === undefined || settleTimeoutMs >= quietMs) return;
  const prefix = at === undefined ? '' : `${at.label}: `;
  throw new TerminalError(
    'INVALID_ARGUMENT',
    settleMs === undefined
      ? `${prefix}settleTimeoutMs (${settleTimeoutMs}) is shorter than the default quiet interval (${quietMs} ms); pass a smaller settleMs too`
      : `${prefix}settleTimeoutMs (${settleTimeoutMs}) must be at least settleMs (${settleMs})`,
    { ...(at === undefined ? {} : { actionIndex: at.index }), settleMs, settleTimeoutMs },
  );
}

/**
 * Waits until the session's screen settles (screen/settle.ts); within the start-up window, quiet
 * counts only once the program is ready. SESSION_CLOSED when the session closes meanwhile.
 * `clock`: tests pass a fake one.
 */
export async function settleSession(
  session: Session,
  options: ObserveOptions,
  clock: Clock = systemClock,
): Promise<SettleResult> {
  session.assertOpen();
  const startupLeftMs = session.readiness.startupLeftMs();
  const result = await waitForSettle(
    session,
    {
      ...options,
      inputGraceMs: session.detectsInputWait ? options.inputGraceMs : undefined,
      readyTimeoutMs: options.awaitReady && startupLeftMs > 0 ? startupLeftMs : undefined,
    },
    clock,
  );
  session.assertOpen();
  // Not ready, but with text on the screen (a profile printing, a program redrawing): the
  // screen was still changing or not yet settled, not empty.
  const reason = result.reason === 'starting' && session.hasText() ? 'timeout' : result.reason;
  return { ...result, reason, elapsedMs: Math.round(result.elapsedMs) };
}

/** Waits for settlement, then captures a snapshot. */
export async function observeSession(
  session: Session,
  options: ObserveOptions,
  scrollbackLines = 0,
): Promise<Snapshot> {
  const result = await settleSession(session, options);
  return session.snapshot(result.reason, scrollbackLines);
}
