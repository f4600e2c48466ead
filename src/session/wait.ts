/**
 * Expect-style waits: until a pattern appears on the terminal (in the screen, or in lines that
 * scrolled into history since the wait began), until it is gone from the screen, or until the
 * program exits; with a timeout (WAIT_TIMEOUT) and optional progress reports. Cheap under a
 * firehose: the condition is checked at most every SAMPLE_MS while output streams in, and the
 * pattern runs in the match worker under its time budget (PATTERN_TIMEOUT past it).
 */
import { cancelledError, TerminalError } from '../errors.js';
import type { ExpectCondition } from '../input/actions.js';
import { sharedMatchPool } from '../match/match-pool.js';
import { SAMPLE_MS } from '../screen/settle.js';
import type { Session } from './session.js';

/** What a wait waits for (parsed from a wait action, see input/actions.ts). */
export type WaitCondition = ExpectCondition;

export interface WaitOutcome {
  readonly reason: 'matched' | 'gone' | 'exited';
  readonly elapsedMs: number;
  /** What matched; row and column (1-based cells) when it is on the screen. */
  readonly match?: { readonly text: string; readonly row?: number; readonly column?: number };
}

export interface WaitOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  /** Called about once a second while waiting, with the time waited so far. */
  readonly onProgress?: ((elapsedMs: number, timeoutMs: number) => void) | undefined;
}

const PROGRESS_MS = 1000;

export function describeCondition(condition: WaitCondition): string {
  if (condition.kind === 'exit') return 'the program to exit';
  return `/${condition.source}/ to ${condition.gone ? 'leave the screen' : 'appear'}`;
}

export function waitForCondition(
  session: Session,
  condition: WaitCondition,
  options: WaitOptions,
): Promise<WaitOutcome> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const since = session.historyTotal;
    // Stops a search still running in the match worker once the wait is over.
    const searches = new AbortController();
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    let lastCheck = 0;
    let isChecking = false;
    let isStale = false;
    let isExpired = false;
    const finish = (outcome: WaitOutcome | Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(deadline);
      clearInterval(progress);
      unsubscribe();
      options.signal?.removeEventListener('abort', onAbort);
      searches.abort();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const elapsed = () => performance.now() - started;
    const timedOut = () =>
      new TerminalError(
        'WAIT_TIMEOUT',
        `waited ${options.timeoutMs} ms for ${describeCondition(condition)}; the latest screen is attached`,
        { timeoutMs: options.timeoutMs },
      );
    // One evaluation at a time (the pattern runs in a worker); output that arrives meanwhile
    // marks the result stale and is checked next. The deadline is decided by a check that
    // started after it, so the final screen is always looked at.
    const check = () => {
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
      evaluate(session, condition, since, searches.signal).then(
        (outcome) => {
          isChecking = false;
          if (done) return;
          if (outcome) return finish({ ...outcome, elapsedMs: elapsed() });
          if (hadExited) {
            return finish(
              new TerminalError(
                'SESSION_EXITED',
                `the program exited before ${describeCondition(condition)}`,
                { ...session.info() },
              ),
            );
          }
          if (isFinal) return finish(timedOut());
          if (isExpired) return check();
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
      timer = setTimeout(check, session.isFinal() ? 0 : wait);
    };
    const onAbort = () => finish(cancelledError(options.signal as AbortSignal));
    const deadline = setTimeout(() => {
      isExpired = true;
      if (!isChecking) check();
    }, options.timeoutMs);
    const progress = setInterval(
      () => options.onProgress?.(elapsed(), options.timeoutMs),
      PROGRESS_MS,
    );
    const unsubscribe = session.subscribe(onEvent);
    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    check();
  });
}

/** Whether the condition holds now; the texts are read at once, the pattern runs in a worker. */
async function evaluate(
  session: Session,
  condition: WaitCondition,
  since: number,
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
  const history = session.historySince(since, 2000).lines;
  const [hit] = await search([...history, ...screen, joined]);
  if (!hit) return undefined;
  const row = rows[hit.textIndex - history.length];
  if (hit.textIndex < history.length || !row)
    return { reason: 'matched', match: { text: hit.text } };
  return {
    reason: 'matched',
    match: {
      text: hit.text,
      row: hit.textIndex - history.length + 1,
      column: row.columns[hit.index] ?? 1,
    },
  };
}
