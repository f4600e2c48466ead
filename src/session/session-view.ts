/**
 * What a session says of itself, built from facts read at one moment: the snapshot every screen
 * tool returns, the info terminal_list shows, and SESSION_EXITED. Pure: no session, no clock, no
 * /proc.
 */

import type { ForegroundProcess } from '../pty/foreground.js';
import type { PtyExit } from '../pty/pty-handle.js';
import type { ScreenGrid } from '../screen/grid.js';
import type { History } from '../screen/lines.js';
import type { TerminalModes } from '../screen/terminal-modes.js';
import { makeTextSafe } from '../screen/text-safety.js';
import type { SessionInfo } from '../shared/contract/session-info.js';
import type { SettleLabel, Snapshot } from '../shared/contract/snapshot.js';
import { TerminalError } from '../shared/errors.js';

export type SessionStatus = Snapshot['status'];

/** The program's side: how it runs, or how it ended. */
export interface ProgramFacts {
  readonly status: SessionStatus;
  readonly exit: PtyExit | undefined;
  /** The terminal's foreground process when it is not the session's own program. */
  readonly foreground: ForegroundProcess | undefined;
}

/** The screen's side of a snapshot. */
export interface ScreenFacts {
  readonly grid: ScreenGrid;
  readonly modes: TerminalModes;
  readonly title: string;
  /** How long ago the screen last changed, in ms. */
  readonly quietMs: number;
  readonly historyTotal: number;
  /** The scrollback view, when asked for. */
  readonly scrollback: History | undefined;
  /** Whether the program waits for input, where this can be told and it runs. */
  readonly waitingForInput: boolean | undefined;
  /** Why the transcript does not hold every line it should (the disk refused it, a file is damaged). */
  readonly transcriptError?: string | undefined;
}

/**
 * The screen now. `observed` is how a settle wait just ended, or 'none' when none ran: the
 * snapshot then says how long the screen has been quiet. An exited program's screen is final.
 */
export function buildSnapshot(
  observed: SettleLabel,
  program: ProgramFacts,
  screen: ScreenFacts,
): Snapshot {
  const { cols, rows, buffer, cursor, screen: text, styles, spans } = screen.grid;
  const exited = program.status === 'exited';
  const final = observed === 'none' || observed === 'timeout' || observed === 'starting';
  const settle = exited && final ? 'exited' : observed;
  const tracking = screen.modes.mouseTracking;
  return {
    status: program.status,
    ...exitFields(program.exit),
    ...transcriptField(screen.transcriptError),
    settled: settle !== 'none' && settle !== 'timeout' && settle !== 'starting',
    settle,
    ...(settle === 'none' ? { quietMs: screen.quietMs } : {}),
    ...(screen.waitingForInput === undefined ? {} : { waitingForInput: screen.waitingForInput }),
    ...(program.foreground ? { foreground: program.foreground } : {}),
    ...(screen.title ? { title: screen.title } : {}),
    cols,
    rows,
    buffer,
    cursor,
    ...(tracking === 'none' ? {} : { mouse: { tracking, encoding: screen.modes.mouseEncoding } }),
    screen: text.slice(0, shownRows(text, cursor.row)),
    ...(spans.length > 0 ? { styles, spans } : {}),
    historyTotal: screen.historyTotal,
    ...(screen.scrollback ? { scrollback: screen.scrollback } : {}),
  };
}

/**
 * `snapshot` with transcriptError `error` beside its status: a read of history after the snapshot
 * was built (historySince, find) may find a file of the transcript damaged.
 */
export function withTranscriptError(snapshot: Snapshot, error: string | undefined): Snapshot {
  if (error === undefined || snapshot.transcriptError === error) return snapshot;
  const { status, exitCode, signal, transcriptError: _, ...rest } = snapshot;
  return {
    status,
    ...(exitCode === undefined ? {} : { exitCode }),
    ...(signal === undefined ? {} : { signal }),
    transcriptError: error,
    ...rest,
  };
}

/** What a session's info shows of it besides its program (a Session). */
export interface SessionFacts {
  readonly id: string;
  readonly command: string | null;
  readonly cwd: string;
  readonly pid: number;
  readonly startedAt: Date;
  readonly screen: {
    readonly cols: number;
    readonly rows: number;
    readonly transcriptError?: string | undefined;
  };
  readonly recording: string | undefined;
  readonly recordingError: string | undefined;
}

/** A session as terminal_list shows it (the registry adds who watches it). */
export function buildInfo(session: SessionFacts, program: ProgramFacts): SessionInfo {
  return {
    sessionId: session.id,
    // Shown to every client (over HTTP, others than the one that started it): as the screen is.
    command: session.command === null ? null : makeTextSafe(session.command),
    cwd: makeTextSafe(session.cwd),
    cols: session.screen.cols,
    rows: session.screen.rows,
    status: program.status,
    ...exitFields(program.exit),
    pid: session.pid,
    ...(program.foreground ? { foreground: program.foreground } : {}),
    startedAt: session.startedAt.toISOString(),
    ...(session.recording === undefined ? {} : { recording: session.recording }),
    ...(session.recordingError === undefined ? {} : { recordingError: session.recordingError }),
    ...transcriptField(session.screen.transcriptError),
  };
}

/** The transcriptError field, absent when the transcript holds every line it should. */
function transcriptField(error: string | undefined): { transcriptError?: string } {
  return error === undefined ? {} : { transcriptError: error };
}

/** SESSION_EXITED for a session; `waitingFor` names what a wait was waiting for. */
export function sessionExitedError(
  info: SessionInfo,
  exit: PtyExit | undefined,
  waitingFor?: string,
): TerminalError {
  const during = waitingFor === undefined ? '' : ` while waiting for ${waitingFor}`;
  return new TerminalError(
    'SESSION_EXITED',
    `session "${info.sessionId}" has exited${describeExit(exit)}${during}; read its final screen with terminal_snapshot, close it with terminal_close, or start a new one with terminal_start`,
    { ...info },
  );
}

/** How the program ended, for an error's message: " (exit code 2)", " (killed by SIGTERM)". */
function describeExit(exit: PtyExit | undefined): string {
  if (!exit) return '';
  if (exit.signal) return ` (killed by ${exit.signal})`;
  return ` (exit code ${exit.exitCode})`;
}

function exitFields(exit: PtyExit | undefined): { exitCode?: number; signal?: string } {
  if (!exit) return {};
  if (exit.signal) return { signal: exit.signal };
  return exit.exitCode === null ? {} : { exitCode: exit.exitCode };
}

/** How many rows a snapshot shows: down to the last row with text, or the cursor's if lower. */
function shownRows(screen: readonly string[], cursorRow: number): number {
  let last = screen.length;
  while (last > cursorRow && screen[last - 1] === '') last--;
  return last;
}
