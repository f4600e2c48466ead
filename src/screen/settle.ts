/**
 * Settlement: waits until the visible screen has been quiet for `quietMs`, or the program has
 * exited and all its output is parsed, or the deadline passes. Visible change is a change of the
 * screen fingerprint (text, styles, cursor, buffer, size); unparsed output and a synchronized
 * update in progress are never quiet. The fingerprint is sampled at most once per SAMPLE_MS while
 * output streams in, so the cost stays flat under a firehose. Rules: spec/guarantees.md, Settlement.
 */
import { cancelledError } from '../shared/errors.js';

export interface SettleSource {
  fingerprint(): string;
  /** Increments whenever a chunk of output finishes parsing. */
  readonly parseCount: number;
  /** When the most recent chunk finished parsing. */
  readonly lastParsedAt: number;
  /** Output received but not parsed yet. */
  readonly pendingBytes: number;
  isSynchronizedUpdate(): boolean;
  /** The program has exited and nothing more can arrive. */
  isFinal(): boolean;
  /** Whether the foreground program is blocked reading the terminal, where this is known. */
  isWaitingForInput?(): boolean;
  /**
   * Confirms an input wait: resolves true once all output the program wrote so far has been
   * received and parsed and it still waits. Without it, isWaitingForInput() alone is trusted.
   */
  confirmInputWait?(): Promise<boolean>;
  /**
   * Whether the program is ready (its first screen drawn, or waiting for input, or exited;
   * latched). Without it, a program is always ready.
   */
  isReady?(): boolean;
  /** Calls `listener` on parsed output, resize and exit; returns an unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

export interface SettleOptions {
  readonly quietMs: number;
  /** Deadline, from the start of the observation. */
  readonly timeoutMs: number;
  /** Quiet that suffices once the program is known to wait for input. */
  readonly inputGraceMs?: number | undefined;
  /**
   * Wait this long at most for the program to be ready before quiet counts (a start: a blank
   * screen is not a settled one); the deadline then runs from readiness, unless `strictDeadline`.
   */
  readonly readyTimeoutMs?: number | undefined;
  /** The deadline is `timeoutMs` from the start of the observation, readiness or not. */
  readonly strictDeadline?: boolean | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** `starting`: the program was still not ready at the deadline (nothing drawn, not waiting). */
export type SettleReason = 'quiet' | 'exited' | 'input' | 'timeout' | 'starting';

export interface SettleResult {
  readonly settled: boolean;
  readonly reason: SettleReason;
  readonly elapsedMs: number;
}

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Longest gap between fingerprint samples while output is arriving. */
export const SAMPLE_MS = 16;
/** How often the input-wait probe is consulted while waiting. */
export const PROBE_MS = 5;
/** How often readiness is looked at while the program is not ready and output does not say. */
const READY_PROBE_MS = 20;

export function waitForSettle(
  source: SettleSource,
  options: SettleOptions,
  clock: Clock = systemClock,
): Promise<SettleResult> {
  return new Promise((resolve, reject) => {
    const start = clock.now();
    let deadline = start + options.timeoutMs;
    const readyDeadline = start + (options.readyTimeoutMs ?? 0);
    let awaitingReady =
      options.readyTimeoutMs !== undefined && source.isReady !== undefined && !source.isReady();
    const probing = options.inputGraceMs !== undefined && source.isWaitingForInput !== undefined;
    let fingerprint = source.fingerprint();
    let seenParses = source.parseCount;
    let lastChange = start;
    let lastSample = start;
    let timer: unknown;
    let timerAt = Number.POSITIVE_INFINITY;
    let done = false;
    let confirming = false;

    const finish = (settled: boolean, reason: SettleReason) => {
      if (done) return;
      done = true;
      cleanup();
      resolve({ settled, reason, elapsedMs: clock.now() - start });
    };
    const onAbort = () => {
      if (done) return;
      done = true;
      cleanup();
      reject(cancelledError(options.signal as AbortSignal));
    };
    const cleanup = () => {
      if (timer !== undefined) clock.clearTimeout(timer);
      unsubscribe();
      options.signal?.removeEventListener('abort', onAbort);
    };
    const schedule = (at: number) => {
      if (done || at >= timerAt) return;
      if (timer !== undefined) clock.clearTimeout(timer);
      timerAt = at;
      timer = clock.setTimeout(evaluate, Math.max(0, Math.ceil(at - clock.now())));
    };
    const sample = (now: number) => {
      lastSample = now;
      if (source.parseCount === seenParses) return;
      seenParses = source.parseCount;
      const next = source.fingerprint();
      if (next !== fingerprint) {
        fingerprint = next;
        lastChange = Math.max(lastChange, source.lastParsedAt);
      }
    };
    function evaluate() {
      timer = undefined;
      timerAt = Number.POSITIVE_INFINITY;
      if (done) return;
      const now = clock.now();
      sample(now);
      const busy = source.pendingBytes > 0 || source.isSynchronizedUpdate();
      if (source.isFinal() && source.pendingBytes === 0) return finish(true, 'exited');
      if (awaitingReady) {
        if (!source.isReady?.()) {
          if (options.strictDeadline ? now >= deadline : now >= readyDeadline) {
            return finish(false, 'starting');
          }
          const until = options.strictDeadline ? deadline : readyDeadline;
          return schedule(Math.min(now + READY_PROBE_MS, until));
        }
        awaitingReady = false;
        // Ready because it waits for input: what it drew may still be on its way, so the
        // screen's quiet (since the start, if it drew nothing yet) does not count; the input
        // wait is confirmed through the terminal first, as below.
        if (source.isWaitingForInput?.()) {
          lastChange = Math.max(lastChange, now - (options.inputGraceMs ?? 0));
        }
        if (!options.strictDeadline) deadline = Math.max(deadline, now + options.timeoutMs);
      }
      const quietFor = now - lastChange;
      const graceOver = probing && !busy && quietFor >= (options.inputGraceMs as number);
      const waiting = graceOver && !confirming && source.isWaitingForInput?.() === true;
      // A program that waits for input has written all it drew, but the output may still be on
      // its way (a loaded machine can take a second to read it): while it waits, quiet counts
      // only once a barrier has shown nothing is, and that settles it as an input wait.
      const quietOver = !busy && quietFor >= options.quietMs;
      const held = confirming || (waiting && source.confirmInputWait !== undefined);
      if (quietOver && !held) return finish(true, 'quiet');
      if (waiting) confirmInput();
      if (now >= deadline) return finish(false, 'timeout');
      let next = busy ? now + SAMPLE_MS : quietOver ? now + PROBE_MS : lastChange + options.quietMs;
      if (probing && !busy) {
        next = Math.min(
          next,
          Math.max(now + PROBE_MS, lastChange + (options.inputGraceMs as number)),
        );
      }
      schedule(Math.min(next, deadline));
    }
    /** Settles on an input wait once a barrier shows no output was still on its way. */
    function confirmInput() {
      confirming = true;
      const parses = source.parseCount;
      const confirm = source.confirmInputWait?.() ?? Promise.resolve(true);
      confirm.then(
        (ok) => {
          confirming = false;
          if (done) return;
          if (ok && source.parseCount === parses) return finish(true, 'input');
          schedule(clock.now());
        },
        () => {
          confirming = false;
          schedule(clock.now());
        },
      );
    }
    const onEvent = () => {
      if (done) return;
      const now = clock.now();
      if (source.isFinal() || now - lastSample >= SAMPLE_MS) {
        schedule(now);
      } else {
        schedule(lastSample + SAMPLE_MS);
      }
    };

    const unsubscribe = source.subscribe(onEvent);
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    evaluate();
  });
}
