/**
 * The conditions of wait actions as checks for the wait loop (wait.ts): a pattern on the terminal
 * (in the screen, or in lines that scrolled into history since the wait began, paged through
 * find.ts), its disappearance from the screen, the program's exit, and the shell's command
 * finishing (its command marks, see screen/command-marks.ts).
 */

import type { ExpectCondition } from '../input/actions.js';
import { sharedMatchPool } from '../match/match-pool.js';
import { commandState, findFinishedCommand, type UnknownExit } from '../screen/command-marks.js';
import { type Match, placeMatches } from '../screen/find.js';
import type { ScreenReader } from '../screen/screen.js';
import { LIMITS } from '../shared/config.js';
import { findInHistory } from './find.js';
import type { Session } from './session.js';
import type { WaitOutcome } from './wait.js';

/** History lines a pattern wait searches in one evaluation, at most (and LIMITS.maxHistoryPageBytes). */
const HISTORY_PAGE_LINES = 2000;

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

/**
 * Where a command wait looks for its command: the first to finish after the mark this returns.
 * That is the command running now, else the next one to start (the one the batch typed); but
 * when none runs and no input has been sent since the last one finished, that one, at once.
 */
export function commandAnchor(session: Session): number {
  const { running, last } = commandState(session.screen.commandMarks);
  if (!running && last && last.endSeq > session.inputMarkSeq) return last.endSeq - 1;
  return session.screen.commandMarkSeq;
}

/**
 * A command wait's outcome: `finished` once its D mark came, `exited` when the shell ended
 * first (its output then runs to the cursor); undefined meanwhile. A plain check, so other
 * conditions can be put beside it.
 */
export function commandOutcome(
  session: Pick<Session, 'status'> & { screen: Pick<ScreenReader, 'commandMarks' | 'cursorLine'> },
  afterSeq: number,
): Omit<WaitOutcome, 'elapsedMs'> | undefined {
  const done = findFinishedCommand(session.screen.commandMarks, afterSeq);
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
  const { runningFrom } = commandState(session.screen.commandMarks);
  if (runningFrom === undefined) return { reason: 'exited' };
  const cursor = session.screen.cursorLine();
  const toLine = cursor.column > 1 ? cursor.line : cursor.line - 1;
  return {
    reason: 'exited',
    command: toLine >= runningFrom ? { fromLine: runningFrom, toLine } : {},
  };
}

/**
 * Whether the condition holds now: the history lines not yet searched (in pages, find.ts), then
 * the screen; the texts are read at once, the pattern runs in a worker.
 */
export async function evaluate(
  session: Session,
  condition: ExpectCondition,
  searched: { line: number },
  signal: AbortSignal,
): Promise<Omit<WaitOutcome, 'elapsedMs'> | undefined> {
  if (condition.kind === 'exit' || condition.kind === 'command')
    return session.status === 'exited' ? { reason: 'exited' } : undefined;
  const rows = session.screen.rowTexts();
  const screen = rows.map((r) => r.text);
  const joined = screen.join('\n');
  const search = (texts: string[]) =>
    sharedMatchPool().search(condition.query, texts, { limit: 1, withEmpty: true, signal });
  if (condition.gone) {
    const hits = await search([...screen, joined]);
    return hits.length > 0 ? undefined : { reason: 'gone' };
  }
  const end = session.screen.historyTotal;
  const [inHistory] = await findInHistory(condition.query, {
    limit: 1,
    withEmpty: true,
    signal,
    after: searched.line,
    end,
    readHistory: (since, maxLines, maxBytes, to) =>
      session.screen.historyBytes(since, maxLines, maxBytes, to),
    batchLines: HISTORY_PAGE_LINES,
    batchBytes: LIMITS.maxHistoryPageBytes,
  });
  if (inHistory)
    return { reason: 'matched', match: { text: inHistory.text, line: inHistory.line } };
  searched.line = end;
  const [hit] = await search([...screen, joined]);
  if (!hit) return undefined;
  // A match in the joined screen text may span rows: it has no one line.
  if (hit.textIndex >= rows.length) return { reason: 'matched', match: { text: hit.text } };
  const placed = placeMatches(rows, [hit])[0] as Match;
  const line = end + placed.row;
  return {
    reason: 'matched',
    match: { text: hit.text, line, row: placed.row, column: placed.column },
  };
}
