/**
 * One person attached to a session (server side): sends them frames of the screen as it changes,
 * at most one every MIN_FRAME_INTERVAL_MS (or ten times what composing the last one took, so
 * frames cost at most a tenth of a core per watcher), and none while the last one is still in
 * the process's buffer: a watcher that stops reading holds the server's memory to one frame (plus
 * what the kernel's socket buffer took), then gets the screen as it is once it reads again.
 * Passes what they type to the program, and tells them, in one line, why it ended: the program
 * exited, the agent closed the session, or the server is shutting down.
 */
import type { Socket } from 'node:net';
import { makeTextSafe } from '../screen/text-safety.js';
import type { Session } from '../session/session.js';
import { composeFrame, type FrameState, isSizeUnknown } from './frame.js';
import { encode, type ServerMessage } from './protocol.js';

/** Least time between two frames to one watcher. */
const MIN_FRAME_INTERVAL_MS = 8;
/** Frames wait this many times what composing the last one took. */
const FRAME_COST_FACTOR = 10;
const DETACH_HINT = 'Ctrl-\\ detaches.';

export class Watcher {
  private _frame: FrameState | undefined;
  private _timer: NodeJS.Timeout | undefined;
  private _lastFrameAt = Number.NEGATIVE_INFINITY;
  private _interval = MIN_FRAME_INTERVAL_MS;
  private _ended = false;
  private _cols: number;
  private _rows: number;
  private readonly _leave: () => void;
  private readonly _unsubscribe: () => void;
  private _toldReadOnly = false;
  private _toldBacklog = false;
  /** Frames written and not yet handed to the kernel. */
  private _unflushed = 0;
  /** Whether a render was skipped while a frame was unflushed. */
  private _skipped = false;

  constructor(
    private readonly _socket: Socket,
    private readonly _session: Session,
    private readonly _readOnly: boolean,
    size: { cols: number; rows: number },
    private readonly _onEnd: (watcher: Watcher) => void,
  ) {
    this._cols = size.cols;
    this._rows = size.rows;
    this._leave = _session.presence.join(!_readOnly);
    this._unsubscribe = _session.subscribe(() => this._schedule());
    _socket.on('close', () => this._cleanUp());
    _socket.on('error', () => this._cleanUp());
    this._send({
      type: 'attached',
      sessionId: _session.id,
      command: _session.command,
      readOnly: _readOnly,
    });
    this._render();
  }

  /** The person's terminal changed size. */
  resize(cols: number, rows: number): void {
    this._cols = cols;
    this._rows = rows;
    // Paced like output: a client sending sizes as fast as it can gets one redraw per interval.
    this._schedule();
  }

  /** What the person typed. */
  input(data: string): void {
    if (this._ended) return;
    if (this._readOnly) {
      if (!this._toldReadOnly) this._notice('attached read-only: what you type is not sent');
      this._toldReadOnly = true;
      return;
    }
    if (this._session.input.fromPerson(Buffer.from(data, 'utf8'))) {
      this._toldBacklog = false;
    } else if (
      !this._toldBacklog &&
      this._session.status === 'running' &&
      !this._session.isClosed
    ) {
      // Once until input goes through again: a client that floods and never reads gets one line.
      this._toldBacklog = true;
      this._notice(
        'not sent: the program has not read the input it already has (1 MiB); wait and type again',
      );
    }
  }

  /** Ends the attachment with one line for the person. */
  end(reason: 'exited' | 'closed' | 'error', message: string, screen?: string[]): void {
    if (this._ended) return;
    this._send({ type: 'end', reason, message, ...(screen ? { screen } : {}) });
    this._cleanUp();
    this._socket.end();
  }

  private _schedule(): void {
    if (this._ended || this._timer) return;
    const wait = Math.max(0, this._lastFrameAt + this._interval - performance.now());
    this._timer = setTimeout(() => {
      this._timer = undefined;
      this._render();
    }, wait);
  }

  private _render(): void {
    if (this._ended) return;
    const session = this._session;
    if (session.isClosed) {
      this.end('closed', `the agent closed session ${session.id}; it is gone`);
      return;
    }
    if (this._unflushed > 0) {
      this._skipped = true; // the flush of the last frame renders again
      return;
    }
    const started = performance.now();
    this._lastFrameAt = started;
    const cursor = session.screen.cursor();
    // A size not reported yet (0) is too small for any screen.
    const unsized = isSizeUnknown({ cols: this._cols, rows: this._rows });
    const tooSmall = this._cols < session.screen.cols || this._rows < session.screen.rows;
    const { data, state } = composeFrame(
      {
        cols: session.screen.cols,
        rows: session.screen.rows,
        rowSequences: tooSmall ? [] : session.screen.serializeRows(),
        cursor,
        modes: session.screen.modes(),
        ...(unsized
          ? { cursorRow: this._cursorRow(cursor) }
          : tooSmall
            ? { cursorLine: this._cursorLine(cursor) }
            : {}),
      },
      {
        cols: this._cols,
        rows: this._rows,
        status: this._status(),
        detachHint: DETACH_HINT,
      },
      this._frame,
    );
    this._frame = state;
    if (data !== '') this._sendFrame(data);
    const cost = performance.now() - started;
    this._interval = Math.max(MIN_FRAME_INTERVAL_MS, FRAME_COST_FACTOR * cost);
    if (session.status === 'exited') {
      const info = session.info();
      const how =
        info.signal !== undefined
          ? `was killed by ${info.signal}`
          : `exited with code ${info.exitCode}`;
      this.end(
        'exited',
        `the program in session ${session.id} ${how}; the agent can still read its screen until it closes the session`,
        lastRows(session),
      );
    }
  }

  /**
   * The cursor's row, cut to this terminal's width: from the first column when the cursor is
   * within it, else ending at the cursor's column.
   */
  private _cursorLine(cursor: { row: number; column: number }): {
    text: string;
    firstColumn: number;
  } {
    const firstColumn = Math.max(0, cursor.column - this._cols + 1);
    return {
      text: this._session.screen.drawnText(cursor.row, firstColumn, this._cols),
      firstColumn,
    };
  }

  /** The cursor's whole row, for a terminal of unknown size: the cells before the cursor, the rest. */
  private _cursorRow(cursor: { row: number; column: number }): { before: string; after: string } {
    const { screen } = this._session;
    const column = Math.min(cursor.column, screen.cols);
    return {
      before: screen.drawnText(cursor.row, 0, column),
      after: screen.drawnText(cursor.row, column, screen.cols - column).trimEnd(),
    };
  }

  private _status(): string {
    const s = this._session;
    // The command last: a long one is what the line's end cuts.
    const parts = [
      'agent-tty',
      s.id,
      `${s.screen.cols}x${s.screen.rows}`,
      ...(this._readOnly ? ['read-only'] : []),
      DETACH_HINT,
      // The agent's command, shown, never sent: its controls cannot reach the person's terminal.
      makeTextSafe(s.command ?? 'shell'),
    ];
    return ` ${parts.join(' · ')} `;
  }

  private _sendFrame(data: string): void {
    if (this._ended || this._socket.destroyed) return;
    this._unflushed++;
    this._socket.write(encode({ type: 'frame', data }), () => {
      this._unflushed--;
      if (this._skipped && this._unflushed === 0) {
        this._skipped = false;
        this._schedule();
      }
    });
  }

  private _notice(message: string): void {
    this._send({ type: 'notice', message });
  }

  private _send(message: ServerMessage): void {
    if (this._ended || this._socket.destroyed) return;
    this._socket.write(encode(message));
  }

  private _cleanUp(): void {
    if (this._ended) return;
    this._ended = true;
    clearTimeout(this._timer);
    this._timer = undefined;
    this._unsubscribe();
    this._leave();
    this._onEnd(this);
  }
}

/** The screen's rows as text, without the blank rows at the bottom. */
function lastRows(session: Session): string[] {
  const rows = session.screen.rowTexts().map((r) => r.text);
  while (rows.length > 0 && rows[rows.length - 1]?.trim() === '') rows.pop();
  return rows;
}
