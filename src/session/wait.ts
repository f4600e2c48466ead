/**
 * Waiting for a condition on a session: until a pattern appears on the terminal (in the screen,
 * or in lines that scrolled into history since the wait began), until it is gone from the
 * screen, until the program exits, until the shell's command finishes (its command marks, see
 * screen/command-marks.ts), or until any check a caller supplies holds. A wait resolves with its
 * outcome, `timeout` included (as settlement does); it rejects only when the session is closed,
 * the request is cancelled, a check fails, or the program exits first. With stopOnInput it also
 * ends, reason `input`, when the program waits for input instead (early-stop.ts). Cheap under a
 * firehose: the condition is checked at most every SAMPLE_MS while output streams in, one check
 * at a time (patterns run in the match worker under its time budget).
 */
import { cancelledError, TerminalError } from '../errors.js';
import type { ExpectCondition } from '../input/actions.js';
import { sharedMatchPool } from '../match/match-pool.js';
import { commandState, findFinishedCommand, type UnknownExit } from '../screen/command-marks.js';
import { type Match, placeMatches } from '../screen/find.js';
import { SAMPLE_MS } from '../screen/settle.js';
import { InputStopTracker, STOP_SAMPLE_MS } from './early-stop.js';
import type { Session } from './session.js';

/** What a wait action waits for (parsed from the action, see input/actions.ts). */
export type WaitCondition = ExpectCondition;

export interface WaitOutcome {
  /** `input`: the program waits for input and the condition does not hold (stopOnInput). */
  readonly reason: 'matched' | 'gone' | 'exited' | 'finished' | 'timeout' | 'input';
  readonly elapsedMs: number;
  /** With `input`: how long the program had been waiting, quiet, before the stop. */
  readonly quietMs?: number;
  /** What matched; row and column (1-based cells) when it is on the screen. */
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

/** What a command wait reports about the command. */
export interface CommandReport {
  readonly exitCode?: number;
  /** Why there is no exit code, when the command finished without one. */
  readonly exitCodeUnknown?: string;
  readonly fromLine?: number;
  readonly toLine?: number;
}

/** Why a finished command has no exit code, as results say it. */
const UNKNOWN_EXIT: Record<UnknownExit, string> = {
  order:
    "another prompt hook ran before the shell's exit-code hook and may have changed the status it saw; a hook rearranged PROMPT_COMMAND or precmd_functions",
  unreported: 'the shell reported no exit code',
  missing: "the shell's next prompt came without an exit code: its exit-code hook did not run",
};

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
/** History lines a pattern wait searches in one evaluation, at most. */
const HISTORY_PAGE_LINES = 2000;

export function describeCondition(condition: WaitCondition): string {
  if (condition.kind === 'exit') return 'the program to exit';
  if (condition.kind === 'command') return "the shell's command to finish";
  return `/${condition.source}/ to ${condition.gone ? 'leave the screen' : 'appear'}`;
}

/** Waits for a wait action's condition. */
export async function waitForCondition(
  session: Session,
  condition: WaitCondition,
  options: Omit<WaitOptions, 'what'>,
): Promise<WaitOutcome> {
  const what = describeCondition(condition);
  if (condition.kind === 'command') {
    // The command is placed among the marks that have arrived so far.
    await session.whenParsed();
    if (!session.hasSentInput && !commandState(session.commandMarks).running) {
      throw noCommandError();
    }
    const after = commandAnchor(session);
    return waitUntil(session, async () => commandOutcome(session, after), { ...options, what });
  }
  // History lines already searched: each line that scrolls off is searched once.
  const searched = { line: session.historyTotal };
  return waitUntil(session, (signal) => evaluate(session, condition, searched, signal), {
    ...options,
    what,
  });
}

/**
 * WAIT_TIMEOUT, built only here: a wait action whose condition did not come in time.
 * `marksSeen`: for a command wait, whether the shell has printed any command mark.
 */
export function waitTimeoutError(
  condition: WaitCondition,
  timeoutMs: number,
  marksSeen = true,
): TerminalError {
  const waited = `waited ${timeoutMs} ms for ${describeCondition(condition)}`;
  if (condition.kind === 'command' && !marksSeen) {
    return new TerminalError(
      'WAIT_TIMEOUT',
      `${waited}, and this shell has printed no command marks (its startup files may have replaced the hooks, or bash is older than 4.4), so a larger timeoutMs will not help; read the attached screen, then wait for the prompt with a pattern instead`,
      { timeoutMs },
    );
  }
  const cause =
    condition.kind === 'command'
      ? 'the command may still be running, or be asking something'
      : 'the program may be asking something else';
  const change = condition.kind === 'pattern' ? ' or change the pattern' : '';
  return new TerminalError(
    'WAIT_TIMEOUT',
    `${waited}; read the attached screen (${cause}), then wait longer with a larger timeoutMs${change}`,
    { timeoutMs },
  );
}

/** INPUT_REQUIRED, built only here: a wait ended early because the program waits for input. */
export function inputRequiredError(
  condition: WaitCondition,
  quietMs: number,
  marksSeen = true,
): TerminalError {
  const unmet =
    condition.kind === 'exit'
      ? 'it has not exited'
      : condition.kind === 'command'
        ? marksSeen
          ? 'its command has not finished'
          : 'its command has not finished (the shell has printed no command marks: wait for its prompt with a pattern instead)'
        : `/${condition.source}/ ${condition.gone ? 'is still on the screen' : 'has not appeared'}`;
  return new TerminalError(
    'INPUT_REQUIRED',
    `the program is waiting for input and ${unmet} (quiet for ${quietMs} ms); read the attached screen and answer what it asks with terminal_input, or pass stopOnInput:false to wait anyway`,
    { quietMs },
  );
}

/**
 * INVALID_ARGUMENT for a command wait with no command to wait for: nothing was ever typed into
 * the shell and none runs (right after it started). Built only here.
 */
function noCommandError(): TerminalError {
  return new TerminalError(
    'INVALID_ARGUMENT',
    'wait command:true has no command to wait for: nothing has been typed into this shell yet; send the command and Enter first, in the same batch before the wait (text, then key Enter, then the wait)',
    {},
  );
}

/**
 * Where a command wait looks for its command: the first to finish after the mark this returns.
 * That is the command running now, else the next one to start (the one the batch typed); but
 * when none runs and no input has been sent since the last one finished, that one, at once.
 */
function commandAnchor(session: Session): number {
  const { running, last } = commandState(session.commandMarks);
  if (!running && last && last.endSeq > session.inputMarkSeq) return last.endSeq - 1;
  return session.commandMarkSeq;
}

/**
 * A command wait's outcome: `finished` once its D mark came, `exited` when the shell ended
 * first (its output then runs to the cursor); undefined meanwhile. A plain check, so other
 * conditions can be put beside it.
 */
export function commandOutcome(
  session: Pick<Session, 'commandMarks' | 'status' | 'cursorLine'>,
  afterSeq: number,
): Omit<WaitOutcome, 'elapsedMs'> | undefined {
  const done = findFinishedCommand(session.commandMarks, afterSeq);
  if (done) {
    return {
      reason: 'finished',
      command: {
        ...(done.exitCode !== undefined ? { exitCode: done.exitCode } : {}),
        ...(done.unknownExit !== undefined
          ? { exitCodeUnknown: UNKNOWN_EXIT[done.unknownExit] }
          : {}),
        ...(done.output ?? {}),
      },
    };
  }
  if (session.status !== 'exited') return undefined;
  const { runningFrom } = commandState(session.commandMarks);
  if (runningFrom === undefined) return { reason: 'exited' };
  const cursor = session.cursorLine();
  const toLine = cursor.column > 1 ? cursor.line : cursor.line - 1;
  return {
    reason: 'exited',
    command: toLine >= runningFrom ? { fromLine: runningFrom, toLine } : {},
  };
}

/**
 * The sampling loop of every wait: runs `check` now, then after output, resize or exit (at most
 * every SAMPLE_MS), and once more at the deadline, so the final screen is always looked at. With
 * stopOnInput, samples the program every STOP_SAMPLE_MS; once the early-stop rule holds and an
 * output barrier shows nothing more on its way, one more check on that screen decides.
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
    const tracker =
      options.stopOnInput && session.detectsInputWait ? new InputStopTracker(session) : undefined;
    // A person who can type (attached with write access, or who typed since the wait began) is
    // the one the program waits for: the wait goes on to its condition (a hand-over).
    const typedAtStart = session.presence.typedCount;
    const personAnswers = () =>
      session.presence.typists > 0 || session.presence.typedCount !== typedAtStart;
    let isConfirming = false;
    /** Output chunks parsed when an input stop was confirmed: the next check decides. */
    let verdict: number | undefined;
    const elapsed = () => performance.now() - started;
    const finish = (outcome: WaitOutcome | Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(deadline);
      clearInterval(progress);
      clearInterval(sampler);
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
      const decides = verdict === session.parseCount ? verdict : undefined;
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
          if (verdict !== undefined) {
            const quietMs = tracker?.quietMs(performance.now()) ?? 0;
            if (
              decides !== undefined &&
              !isStale &&
              session.parseCount === decides &&
              !personAnswers()
            ) {
              return finish({ reason: 'input', elapsedMs: elapsed(), quietMs });
            }
            if (decides !== undefined || verdict !== session.parseCount) {
              // Output came meanwhile: the program did not only wait; start over.
              verdict = undefined;
              tracker?.reset();
            }
          }
          // A verdict still standing is decided by the next check.
          if (isStale || verdict !== undefined) onEvent();
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
    /** Samples the program; once the stop is due, confirms it and has the next check decide. */
    const sampleInput = () => {
      if (done || !tracker || isConfirming || verdict !== undefined || isExpired) return;
      if (personAnswers()) return tracker.reset();
      if (!tracker.observe(performance.now())) return;
      isConfirming = true;
      const parses = session.parseCount;
      session.confirmInputWait().then(
        (ok) => {
          isConfirming = false;
          if (done) return;
          if (!ok || session.parseCount !== parses || !tracker.recheck()) return tracker.reset();
          verdict = parses;
          if (isChecking) {
            isStale = true;
          } else {
            clearTimeout(timer);
            run();
          }
        },
        () => {
          isConfirming = false;
          tracker.reset();
        },
      );
    };
    const sampler = tracker ? setInterval(sampleInput, STOP_SAMPLE_MS) : undefined;
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
  if (condition.kind === 'exit' || condition.kind === 'command')
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
    if (hit) {
      return {
        reason: 'matched',
        match: { text: hit.text, line: history.since + 1 + hit.textIndex },
      };
    }
    searched.line = history.since + history.lines.length;
    history = session.historySince(searched.line, HISTORY_PAGE_LINES, undefined, end);
  }
  searched.line = end;
  const [hit] = await search([...history.lines, ...screen, joined]);
  if (!hit) return undefined;
  const onScreen = hit.textIndex - history.lines.length;
  if (onScreen < 0) {
    return {
      reason: 'matched',
      match: { text: hit.text, line: history.since + 1 + hit.textIndex },
    };
  }
  // A match in the joined screen text may span rows: it has no one line.
  if (onScreen >= rows.length) return { reason: 'matched', match: { text: hit.text } };
  const placed = placeMatches(rows, [{ ...hit, textIndex: onScreen }])[0] as Match;
  const line = end + placed.row;
  return {
    reason: 'matched',
    match: { text: hit.text, line, row: placed.row, column: placed.column },
  };
}
