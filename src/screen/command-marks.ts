/**
 * Shell integration marks (OSC 133) as the screen sees them: `ESC ] 133 ; A|B|C|D [; exit]
 * [; key=value…] ST` (prompt start, command start, output start, command finished). Only marks
 * that carry the session's nonce (`aid=<nonce>`) count, so a nested shell or a user's own
 * integration is never taken for the session's shell. Each mark is recorded with its line in the
 * one line numbering (history lines, then screen rows) and its cursor column; the log is bounded.
 * Pure but for the log: the parser and the command lookup are plain functions.
 * @see spec/tools.md (Command marks)
 */

import type { IDisposable, Terminal } from './xterm.js';

/** A (prompt start), B (command start: end of prompt), C (output start), D (command finished). */

export type MarkKind = 'A' | 'B' | 'C' | 'D';

/**
 * Why a finished command has no exit code: `order`, the shell's hook found that another prompt
 * hook ran before it (D with `why=order`); `unreported`, the shell's D gave none; `missing`, a
 * prompt started (A) with no D for the command.
 */
export type UnknownExit = 'order' | 'unreported' | 'missing';

export interface ParsedMark {
  readonly kind: MarkKind;
  /** D only: the exit code, when the shell gave one. */
  readonly exitCode?: number;
  /** D only: why the shell gave no exit code, when it said (`why=order`). */
  readonly why?: 'order';
}

export interface CommandMark extends ParsedMark {
  /** 1, 2, … in the order the marks were parsed; never reused. */
  readonly seq: number;
  /** The cursor's line when the mark was parsed: history lines, then screen row r is line historyTotal + r. */
  readonly line: number;
  /** The cursor's column (1-based) then. */
  readonly column: number;
}

/** A command between its C and D marks. */
export interface FinishedCommand {
  readonly exitCode?: number;
  /** Set when exitCode is absent: why. */
  readonly unknownExit?: UnknownExit;
  /** Lines the command's output occupies, when it printed anything. */
  readonly output?: { readonly fromLine: number; readonly toLine: number };
  /** The seq of its D mark. */
  readonly endSeq: number;
}

/**
 * Marks kept per session: at least the last 400 (100 commands of up to four marks), at most twice
 * that (older ones are dropped in blocks).
 */
export const MAX_MARKS = 400;

const KINDS: readonly string[] = ['A', 'B', 'C', 'D'];
/** Exit codes are small; anything else in the exit field is not one. */
const EXIT_CODE = /^\d{1,3}$/;

/**
 * The mark an OSC 133 payload (what follows `133;`) describes, or undefined when it is not one
 * of ours: an unknown kind, or no `aid` parameter equal to `nonce`.
 */
export function parseCommandMark(data: string, nonce: string): ParsedMark | undefined {
  const params = data.split(';');
  const kind = params[0] as string;
  if (!KINDS.includes(kind)) return undefined;
  if (!params.some((p, i) => i > 0 && p === `aid=${nonce}`)) return undefined;
  if (kind !== 'D') return { kind: kind as MarkKind };
  const code = params[1];
  if (code !== undefined && EXIT_CODE.test(code)) return { kind: 'D', exitCode: Number(code) };
  return params.includes('why=order') ? { kind: 'D', why: 'order' } : { kind: 'D' };
}

/** The marks of one session, oldest first: at least the last MAX_MARKS, at most twice that. */
export class CommandMarkLog {
  private _marks: CommandMark[] = [];
  private _seq = 0;

  constructor(private readonly _max = MAX_MARKS) {}

  /** Seq of the last mark recorded (0 before the first). */
  get seq(): number {
    return this._seq;
  }

  /** The marks kept, oldest first. */
  get marks(): readonly CommandMark[] {
    return this._marks;
  }

  add(mark: ParsedMark, line: number, column: number): void {
    this._marks.push({ ...mark, seq: ++this._seq, line, column });
    // Dropped in blocks, so a flood of marks costs amortized constant time per mark.
    if (this._marks.length > 2 * this._max) this._marks = this._marks.slice(-this._max);
  }
}

/**
 * Records the shell's marks (OSC 133 carrying `nonce`) into `log` at the cursor `where` says,
 * except on the alternate screen: those belong to a full-screen program, not to the shell.
 */
export function recordCommandMarks(
  term: Terminal,
  nonce: string,
  log: CommandMarkLog,
  where: () => { line: number; column: number; isAlternate: boolean },
  onMark?: () => void,
): IDisposable {
  return term.parser.registerOscHandler(133, (data) => {
    const mark = parseCommandMark(data, nonce);
    const { line, column, isAlternate } = where();
    if (mark && !isAlternate) {
      log.add(mark, line, column);
      onMark?.();
    }
    return true;
  });
}

export interface CommandState {
  /** Whether a command has started (C) and not finished (D) nor been left for a prompt (A). */
  readonly running: boolean;
  /** Where the running command's output starts. */
  readonly runningFrom?: number;
  /** The last command that finished. */
  readonly last?: FinishedCommand;
}

/**
 * Replays the marks as a shell emits them: a command starts at its first C after a prompt and
 * finishes at the next D, or at an A that comes without a D (its exit code then unknown); a D
 * with no C before it (an empty command line, the first prompt) and a C while a command runs are
 * ignored. Calls `onFinished` for each command that finished after the mark `afterSeq`; stops
 * early when it returns true.
 */
function replay(
  marks: readonly CommandMark[],
  onFinished: (command: FinishedCommand) => boolean,
  afterSeq = 0,
): CommandState {
  let open: CommandMark | undefined;
  let last: FinishedCommand | undefined;
  for (const mark of marks) {
    if (mark.kind === 'C') {
      open ??= mark;
    } else if ((mark.kind === 'D' || mark.kind === 'A') && open) {
      last = finished(open, mark);
      open = undefined;
      if (mark.seq > afterSeq && onFinished(last)) break;
    }
  }
  return open
    ? { running: true, runningFrom: open.line, ...(last ? { last } : {}) }
    : { running: false, ...(last ? { last } : {}) };
}

function finished(start: CommandMark, end: CommandMark): FinishedCommand {
  // The D mark comes where the output stopped: at the start of the next line when it ended with
  // a newline (that line is not output), else on its last line.
  const toLine = end.column > 1 ? end.line : end.line - 1;
  const unknownExit: UnknownExit =
    end.kind === 'A' ? 'missing' : end.why === 'order' ? 'order' : 'unreported';
  return {
    ...(end.exitCode !== undefined ? { exitCode: end.exitCode } : { unknownExit }),
    ...(toLine >= start.line ? { output: { fromLine: start.line, toLine } } : {}),
    endSeq: end.seq,
  };
}

/** Whether a command runs now, and the last one that finished. */
export function commandState(marks: readonly CommandMark[]): CommandState {
  return replay(marks, () => false);
}

/** The first command that finished after the mark `afterSeq`, if any has. */
export function findFinishedCommand(
  marks: readonly CommandMark[],
  afterSeq: number,
): FinishedCommand | undefined {
  let found: FinishedCommand | undefined;
  replay(
    marks,
    (command) => {
      found = command;
      return true;
    },
    afterSeq,
  );
  return found;
}
