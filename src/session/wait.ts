/**
 * Waiting for a condition on a session: until a pattern appears on the terminal (in the screen,
 * or in lines that scrolled into history since the wait began), until it is gone from the
 * screen, until the program exits, until the shell's command finishes, or until any check a
 * caller supplies holds (the conditions: wait-conditions.ts). A wait resolves with its outcome,
 * `timeout` included (as settlement does); it rejects only when the session is closed, the
 * request is cancelled, a check fails, or the program exits first. With stopOnInput it also
 * ends, reason `input`, when the program waits for input instead (early-stop.ts). Cheap under a
 * firehose: the condition is checked at most every SAMPLE_MS while output streams in, one check
 * at a time (patterns run in the match worker under its time budget). Timers run on a Clock
 * (screen/settle.ts), so tests drive a wait on a fake one. Its errors: wait-errors.ts.
 */

import type { ExpectCondition } from '../input/actions.js';
import { commandState } from '../screen/command-marks.js';
import { type Clock, SAMPLE_MS, systemClock } from '../screen/settle.js';
import { cancelledError } from '../shared/errors.js';
import { InputStopTracker, STOP_SAMPLE_MS, type StopSource } from './early-stop.js';
import type { Session } from './session.js';
import { type CommandReport, commandAnchor, commandOutcome, evaluate } from './wait-conditions.js';
import { describeCondition, noCommandError } from './wait-errors.js';

/** What a wait action waits for (parsed from the action, see input/actions.ts). */
export type WaitCondition = ExpectCondition;

export interface WaitOutcome {
  /** `input`: the program waits for input and the condition does not hold (stopOnInput). */
  readonly reason: 'matched' | 'gone' | 'exited' | 'finished' | 'timeout' | 'input';
  readonly elapsedMs: number;
  /** With `input`: how long the program had been waiting, quiet, before the stop. */
  readonly quietMs?: number;
  /**
   * What matched; its line (history line N; screen row r is line historyTotal + r) when it lies
   * on one, and its row and column (1-based cells) when that is on the screen.
   */
  readonly match?: {
    readonly text: string;
    readonly line?: number;
    readonly row?: number;
    readonly column?: number;
  };
  /** A command wait: the command's exit code and the lines of its output (none: no output). */
  readonly command?: CommandReport;
}

/** A check: the outcome once the condition holds, undefined while it does not. */
export type WaitCheck = (
  signal: AbortSignal,
) => Promise<Omit<WaitOutcome, 'elapsedMs' | 'quietMs'> | undefined>;

export interface WaitOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  /** Called about once a second while waiting, with the time waited so far. */
  readonly onProgress?: ((elapsedMs: number, timeoutMs: number) => void) | undefined;
  /** Says what is awaited, for the error when the program exits first. */
  readonly what: string;
  /** End early, reason `input`, when the program waits for input instead (where this is known). */
  readonly stopOnInput?: boolean | undefined;
}

const PROGRESS_MS = 1000;

/** Waits for a wait action's condition. */
export async function waitForCondition(
  session: Session,
  condition: WaitCondition,
  options: Omit<WaitOptions, 'what'>,
  clock: Clock = systemClock,
): Promise<WaitOutcome> {
  const what = describeCondition(condition);
  if (condition.kind === 'command') {
    // The command is placed among the marks that have arrived so far.
    await session.screen.whenParsed();
    if (!session.hasSentInput && !commandState(session.screen.commandMarks).running) {
      throw noCommandError();
    }
    const after = commandAnchor(session);
    const check = async () => commandOutcome(session, after);
    return waitUntil(session, check, { ...options, what }, clock);
  }
  // History lines already searched: each line that scrolls off is searched once.
  const searched = { line: session.screen.historyTotal };
  const check: WaitCheck = (signal) => evaluate(session, condition, searched, signal);
  return waitUntil(session, check, { ...options, what }, clock);
}

/** What a wait reads from a session. */
export interface WaitSource extends StopSource {
  readonly isClosed: boolean;
  readonly status: 'running' | 'exited';
  /** Whether this session can tell when its program waits for input (early-stop.ts). */
  readonly detectsInputWait: boolean;
  /** People attached who may type, and how many times one has typed (presence.ts). */
  readonly presence: { readonly typists: number; readonly typedCount: number };
  /** The program has exited or the session closed: nothing more can arrive. */
  isFinal(): boolean;
  /** SESSION_CLOSED for this session. */
  closedError(): Error;
  /** SESSION_EXITED for this session, naming what a wait waited for. */
  exitedError(waitingFor: string): Error;
  /** Calls `listener` on parsed output, resize and exit; returns an unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

/**
 * The sampling loop of every wait: runs `check` now, then after output, resize or exit (at most
 * every SAMPLE_MS), and once more at the deadline, so the final screen is always looked at. With
 * stopOnInput, samples the program every STOP_SAMPLE_MS; once the early-stop rule holds and the
 * tracker has confirmed it (nothing more on its way), one more check on that screen decides.
 */
export function waitUntil(
  source: WaitSource,
  check: WaitCheck,
  options: WaitOptions,
  clock: Clock = systemClock,
): Promise<WaitOutcome> {
  return new Promise((resolve, reject) => {
    const started = clock.now();
    const elapsed = () => clock.now() - started;
    // Stops a check still running in the match worker once the wait is over.
    const checks = new AbortController();
    let done = false;
    /** The next check, when one is scheduled. */
    let timer: unknown;
    let lastCheck = Number.NEGATIVE_INFINITY;
    let isChecking = false;
    /** Output came, or a stop was confirmed, during the check: its result is stale. */
    let isStale = false;
    /** The deadline passed: the next check is the last. */
    let isExpired = false;
    /** Output chunks parsed when an input stop was confirmed: the next check decides. */
    let verdict: number | undefined;
    const tracker =
      options.stopOnInput && source.detectsInputWait ? new InputStopTracker(source) : undefined;
    // A person who can type (attached with write access, or who typed since the wait began) is
    // the one the program waits for: the wait goes on to its condition (a hand-over).
    const typedAtStart = source.presence.typedCount;
    const personAnswers = () =>
      source.presence.typists > 0 || source.presence.typedCount !== typedAtStart;
    const finish = (outcome: WaitOutcome | Error) => {
      if (done) return;
      done = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      clock.clearTimeout(deadline);
      stopProgress();
      stopSampling();
      unsubscribe();
      options.signal?.removeEventListener('abort', onAbort);
      checks.abort();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    /** After a check that did not hold: whether a confirmed stop ends the wait. */
    const decide = (decides: number | undefined) => {
      if (verdict === undefined) return;
      if (decides !== undefined && !isStale && source.parseCount === decides && !personAnswers()) {
        const quietMs = tracker?.quietMs(clock.now()) ?? 0;
        return finish({ reason: 'input', elapsedMs: elapsed(), quietMs });
      }
      if (decides !== undefined || verdict !== source.parseCount) {
        // Output came meanwhile: the program did not only wait; start over.
        verdict = undefined;
        tracker?.reset();
      }
    };
    const run = () => {
      timer = undefined;
      if (done) return;
      if (isChecking) {
        isStale = true;
        return;
      }
      lastCheck = clock.now();
      if (source.isClosed) return finish(source.closedError());
      const hadExited = source.status === 'exited';
      const isFinal = isExpired;
      const decides = verdict === source.parseCount ? verdict : undefined;
      isChecking = true;
      isStale = false;
      check(checks.signal).then(
        (outcome) => {
          isChecking = false;
          if (done) return;
          if (outcome) return finish({ ...outcome, elapsedMs: elapsed() });
          if (hadExited) return finish(source.exitedError(options.what));
          if (isFinal) return finish({ reason: 'timeout', elapsedMs: elapsed() });
          if (isExpired) return run();
          decide(decides);
          // A verdict still standing is decided by the next check.
          if (!done && (isStale || verdict !== undefined)) onEvent();
        },
        (err: Error) => {
          isChecking = false;
          finish(err);
        },
      );
    };
    const onEvent = () => {
      if (done || timer !== undefined) return;
      const wait = Math.max(0, lastCheck + SAMPLE_MS - clock.now());
      timer = clock.setTimeout(run, source.isFinal() ? 0 : wait);
    };
    const onAbort = () => finish(cancelledError(options.signal as AbortSignal));
    const deadline = clock.setTimeout(() => {
      isExpired = true;
      if (!isChecking) run();
    }, options.timeoutMs);
    const stopProgress = repeat(clock, PROGRESS_MS, () =>
      options.onProgress?.(elapsed(), options.timeoutMs),
    );
    /** Samples the program; once the stop is due, has the tracker confirm it. */
    const sampleInput = (stopper: InputStopTracker) => {
      if (done || verdict !== undefined || isExpired || stopper.isConfirming) return;
      if (personAnswers()) return stopper.reset();
      if (!stopper.poll(clock.now())) return;
      void stopper.confirm().then((parses) => {
        if (done || parses === undefined) return;
        verdict = parses;
        if (isChecking) {
          isStale = true;
        } else {
          if (timer !== undefined) clock.clearTimeout(timer);
          run();
        }
      });
    };
    const stopSampling = tracker
      ? repeat(clock, STOP_SAMPLE_MS, () => sampleInput(tracker))
      : () => {};
    const unsubscribe = source.subscribe(onEvent);
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    run();
  });
}

/** Calls `fn` every `ms` on `clock` until the returned function is called. */
function repeat(clock: Clock, ms: number, fn: () => void): () => void {
  let handle: unknown;
  const tick = () => {
    handle = clock.setTimeout(tick, ms);
    fn();
  };
  handle = clock.setTimeout(tick, ms);
  return () => clock.clearTimeout(handle);
}
