/**
 * Expect-style waits: until a pattern appears on the terminal (in the screen, or in lines that
 * scrolled into history since the wait began), until it is gone from the screen, or until the
 * program exits; with a timeout (WAIT_TIMEOUT) and optional progress reports. Cheap under a
 * firehose: the condition is checked at most every SAMPLE_MS while output streams in.
 */
import { cancelledError, TerminalError } from '../errors.js';
import type { ExpectCondition } from '../input/actions.js';
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
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    let lastCheck = 0;
    const finish = (outcome: WaitOutcome | TerminalError) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(deadline);
      clearInterval(progress);
      unsubscribe();
      options.signal?.removeEventListener('abort', onAbort);
      if (outcome instanceof TerminalError) reject(outcome);
      else resolve(outcome);
    };
    const elapsed = () => performance.now() - started;
    const check = () => {
      timer = undefined;
      if (done) return;
      lastCheck = performance.now();
      if (session.isClosed) return finish(session.closedError());
      const outcome = evaluate(session, condition, since);
      if (outcome) return finish({ ...outcome, elapsedMs: elapsed() });
      if (session.status === 'exited') {
        return finish(
          new TerminalError(
            'SESSION_EXITED',
            `the program exited before ${describeCondition(condition)}`,
            { ...session.info() },
          ),
        );
      }
    };
    const onEvent = () => {
      if (done || timer) return;
      const wait = Math.max(0, lastCheck + SAMPLE_MS - performance.now());
      timer = setTimeout(check, session.isFinal() ? 0 : wait);
    };
    const onAbort = () => finish(cancelledError(options.signal as AbortSignal));
    const deadline = setTimeout(() => {
      check();
      finish(
        new TerminalError(
          'WAIT_TIMEOUT',
          `waited ${options.timeoutMs} ms for ${describeCondition(condition)}; the latest screen is attached`,
          { timeoutMs: options.timeoutMs },
        ),
      );
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

function evaluate(
  session: Session,
  condition: WaitCondition,
  since: number,
): Omit<WaitOutcome, 'elapsedMs'> | undefined {
  if (condition.kind === 'exit')
    return session.status === 'exited' ? { reason: 'exited' } : undefined;
  const { re } = condition;
  const rows = session.rowTexts();
  const found = (text: string) => {
    re.lastIndex = 0;
    return re.exec(text);
  };
  if (condition.gone) {
    return rows.some((r) => found(r.text)) || found(rows.map((r) => r.text).join('\n'))
      ? undefined
      : { reason: 'gone' };
  }
  for (const line of session.historySince(since, 2000).lines) {
    const m = found(line);
    if (m) return { reason: 'matched', match: { text: m[0] } };
  }
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as { text: string; columns: readonly number[] };
    const m = found(row.text);
    if (m) {
      return {
        reason: 'matched',
        match: { text: m[0], row: i + 1, column: row.columns[m.index] ?? 1 },
      };
    }
  }
  const joined = found(rows.map((r) => r.text).join('\n'));
  return joined ? { reason: 'matched', match: { text: joined[0] } } : undefined;
}
