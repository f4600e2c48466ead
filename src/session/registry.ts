/**
 * All sessions of the server: ids ("t1", "t2", … never reused), the session limit (running and
 * exited sessions count alike until closed), lookup with SESSION_NOT_FOUND, and closing one or
 * all of them.
 */
import { TerminalError } from '../errors.js';
import type { LaunchPlan } from './launch.js';
import type { Session, SessionInfo, SessionSpec } from './session.js';

/** Creates a session, spawning its program (loaded lazily: the emulator and PTY code). */
export type SessionFactory = (spec: SessionSpec) => Promise<Session> | Session;

export interface StartRequest {
  readonly plan: LaunchPlan;
  readonly cols: number;
  readonly rows: number;
}

export interface RegistryOptions {
  readonly maxSessions: number;
  readonly scrollbackLines: number;
}

export class SessionRegistry {
  private readonly _sessions = new Map<string, Session>();
  private _nextId = 1;
  private _closingAll: Promise<void> | undefined;
  private _starting = 0;
  private readonly _closing = new Map<Session, Promise<void>>();

  constructor(
    private readonly _options: RegistryOptions,
    private readonly _create: SessionFactory,
  ) {}

  get size(): number {
    return this._sessions.size;
  }

  /** Spawns a session; SESSION_LIMIT when full, SPAWN_FAILED (and no session) when it fails. */
  async start(request: StartRequest): Promise<Session> {
    if (this._closingAll) {
      throw new TerminalError('SESSION_CLOSED', 'the server is shutting down');
    }
    if (this._sessions.size + this._starting >= this._options.maxSessions) {
      throw new TerminalError(
        'SESSION_LIMIT',
        `at most ${this._options.maxSessions} sessions are retained, running or exited; close one with terminal_close (terminal_list shows them)`,
        { limit: this._options.maxSessions, sessionIds: [...this._sessions.keys()] },
      );
    }
    const id = `t${this._nextId++}`;
    this._starting++;
    let session: Session;
    try {
      session = await this._create({
        id,
        plan: request.plan,
        cols: request.cols,
        rows: request.rows,
        scrollbackLines: this._options.scrollbackLines,
      });
    } finally {
      this._starting--;
    }
    if (this._closingAll) {
      await session.close();
      throw new TerminalError('SESSION_CLOSED', 'the server is shutting down');
    }
    this._sessions.set(id, session);
    return session;
  }

  get(sessionId: string): Session {
    const session = this._sessions.get(sessionId);
    if (!session) {
      throw new TerminalError(
        'SESSION_NOT_FOUND',
        `session "${sessionId}" not found; call terminal_list to see open sessions`,
        { sessionId },
      );
    }
    return session;
  }

  has(sessionId: string): boolean {
    return this._sessions.has(sessionId);
  }

  list(): SessionInfo[] {
    return [...this._sessions.values()].map((s) => s.info());
  }

  /** Closes a session; false when no such session is open. */
  async close(sessionId: string): Promise<boolean> {
    const session = this._sessions.get(sessionId);
    if (!session) return false;
    this._sessions.delete(sessionId);
    const closing = session.close();
    this._closing.set(session, closing);
    try {
      await closing;
    } finally {
      this._closing.delete(session);
    }
    return true;
  }

  /** Closes every session, including those already closing; refuses new ones from now on. */
  closeAll(): Promise<void> {
    this._closingAll ??= Promise.allSettled([
      ...[...this._sessions.keys()].map((id) => this.close(id)),
      ...this._closing.values(),
    ]).then(() => undefined);
    return this._closingAll;
  }

  /** Session ids (leader pids) of every session not yet fully closed, for a last-resort kill. */
  pids(): number[] {
    return [...this._sessions.values(), ...this._closing.keys()].map((s) => s.pid);
  }
}
