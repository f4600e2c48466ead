/**
 * Waiting for a condition on a session: until a pattern appears on the terminal (in the screen,
 * or in lines that scrolled into history since the wait began), until it is gone from the
 * screen, until the program exits, or until any check a caller supplies holds. A wait resolves
 * with its outcome, `timeout` included (as settlement does); it rejects only when the session is
 * closed, the request is cancelled, a check fails, or the program exits first. Cheap under a
 * firehose: the condition is checked at most every SAMPLE_MS while output streams in, one check
 * at a time (patterns run in the match worker under its time budget).
 */
import { cancelledError, TerminalError } from '../errors.js';
import type { ExpectCondition } from '../input/actions.js';
import { sharedMatchPool } from '../match/match-pool.js';
import { type Match, placeMatches } from '../screen/find.js';
import { SAMPLE_MS } from '../screen/settle.js';
import type { Session } from './session.js';

/** What a wait action waits for (parsed from the action, see input/actions.ts). */
export type WaitCondition = ExpectCondition;

export interface WaitOutcome {
  readonly reason: 'matched' | 'gone' | 'exited' | 'timeout';
  readonly elapsedMs: number;
  /** What matched; row and column (1-based cells) when it is on the screen. */
  readonly match?: { readonly text: string; readonly row?: number; readonly column?: number };
}

/** A check: the outcome once the condition holds, undefined while it does not. */
export type WaitCheck = (
  signal: AbortSignal,
) => Promise<Omit<WaitOutcome, 'elapsedMs'> | undefined>;

export interface WaitOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  /** Called about once a second while waiting, with the time waited so far. */
  readonly onProgress?: ((elapsedMs: number, timeoutMs: number) => void) | undefined;
  /** Says what is awaited, for the error when the program exits first. */
  readonly what: string;
}

const PROGRESS_MS = 1000;
/** History lines a pattern wait searches in one evaluation, at most. */
const HISTORY_PAGE_LINES = 2000;

export function describeCondition(condition: WaitCondition): string {
  if (condition.kind === 'exit') return 'the program to exit';
  return `/${condition.source}/ to ${condition.gone ? 'leave the screen' : 'appear'}`;
}

/** Waits for a wait action's condition. */
export function waitForCondition(
  session: Session,
  condition: WaitCondition,
  options: Omit<WaitOptions, 'what'>,
): Promise<WaitOutcome> {
  // History lines already searched: each line that scrolls off is searched once.
  const searched = { line: session.historyTotal };
  return waitUntil(session, (signal) => evaluate(session, condition, searched, signal), {
    ...options,
    what: describeCondition(condition),
  });
}

/** WAIT_TIMEOUT, built only here: a wait action whose condition did not come in time. */
export function waitTimeoutError(condition: WaitCondition, timeoutMs: number): TerminalError {
  const change = condition.kind === 'pattern' ? ' or change the pattern' : '';
  return new TerminalError(
    'WAIT_TIMEOUT',
    `waited ${timeoutMs} ms for ${describeCondition(condition)}; read the attached screen (the program may be asking something else), then wait longer with a larger timeoutMs${change}`,
    { timeoutMs },
  );
}

/**
 * The sampling loop of every wait: runs `check` now, then after output, resize or exit (at most
 * every SAMPLE_MS), and once more at the deadline, so the final screen is always looked at.
 */
export function waitUntil(
  session: Session,
  check: WaitCheck,
  options: WaitOptions,
): Promise<WaitOutcome> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // Stops a check still running in the match worker once the wait is over.
    const checks = new AbortController();
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    let lastCheck = 0;
    let isChecking = false;
    let isStale = false;
    let isExpired = false;
    const elapsed = () => performance.now() - started;
    const finish = (outcome: WaitOutcome | Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(deadline);
      clearInterval(progress);
      unsubscribe();
      options.signal?.removeEventListener('abort', onAbort);
      checks.abort();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    // Output that arrives during a check marks its result stale; it is checked next.
    const run = () => {
      timer = undefined;
      if (done) return;
      if (isChecking) {
        isStale = true;
        return;
      }
      lastCheck = performance.now();
      if (session.isClosed) return finish(session.closedError());
      const hadExited = session.status === 'exited';
      const isFinal = isExpired;
      isChecking = true;
      isStale = false;
      check(checks.signal).then(
        (outcome) => {
          isChecking = false;
          if (done) return;
          if (outcome) return finish({ ...outcome, elapsedMs: elapsed() });
          if (hadExited) {
            return finish(session.exitedError(options.what));
          }
          if (isFinal) return finish({ reason: 'timeout', elapsedMs: elapsed() });
          if (isExpired) return run();
          if (isStale) onEvent();
        },
        (err: Error) => {
          isChecking = false;
          finish(err);
        },
      );
    };
    const onEvent = () => {
      if (done || timer) return;
      const wait = Math.max(0, lastCheck + SAMPLE_MS - performance.now());
      timer = setTimeout(run, session.isFinal() ? 0 : wait);
    };
    const onAbort = () => finish(cancelledError(options.signal as AbortSignal));
    const deadline = setTimeout(() => {
      isExpired = true;
      if (!isChecking) run();
    }, options.timeoutMs);
    const progress = setInterval(
      () => options.onProgress?.(elapsed(), options.timeoutMs),
      PROGRESS_MS,
    );
    const unsubscribe = session.subscribe(onEvent);
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    run();
  });
}

/**
 * Whether the condition holds now: the history lines not yet searched (in pages), then the
 * screen; the texts are read at once, the pattern runs in a worker.
 */
async function evaluate(
  session: Session,
  condition: WaitCondition,
  searched: { line: number },
  signal: AbortSignal,
): Promise<Omit<WaitOutcome, 'elapsedMs'> | undefined> {
  if (condition.kind === 'exit')
    return session.status === 'exited' ? { reason: 'exited' } : undefined;
  const rows = session.rowTexts();
  const screen = rows.map((r) => r.text);
  const joined = screen.join('\n');
  const search = (texts: string[]) =>
    sharedMatchPool().search(condition.query, texts, { limit: 1, withEmpty: true, signal });
  if (condition.gone) {
    const hits = await search([...screen, joined]);
    return hits.length > 0 ? undefined : { reason: 'gone' };
  }
  const end = session.historyTotal;
  let history = session.historySince(searched.line, HISTORY_PAGE_LINES, undefined, end);
  while (history.since + history.lines.length < end) {
    const [hit] = await search(history.lines);
    if (hit) return { reason: 'matched', match: { text: hit.text } };
    searched.line = history.since + history.lines.length;
    history = session.historySince(searched.line, HISTORY_PAGE_LINES, undefined, end);
  }
  searched.line = end;
  const [hit] = await search([...history.lines, ...screen, joined]);
  if (!hit) return undefined;
  const onScreen = hit.textIndex - history.lines.length;
  if (onScreen < 0 || onScreen >= rows.length)
    return { reason: 'matched', match: { text: hit.text } };
  const placed = placeMatches(rows, [{ ...hit, textIndex: onScreen }])[0] as Match;
  return { reason: 'matched', match: { text: hit.text, row: placed.row, column: placed.column } };
}
