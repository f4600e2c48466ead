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
  /** Record this session even when the server does not record every session. */
  readonly record?: boolean | undefined;
}

export interface RegistryOptions {
  readonly maxSessions: number;
  readonly scrollbackLines: number;
  /** Record every session here ('' = only sessions started with record). */
  readonly recordDir?: string | undefined;
  /** Where sessions started with record go when recordDir is ''. */
  readonly defaultRecordDir?: string | undefined;
  /** Close sessions no tool call has named for this long (0 or undefined = never). */
  readonly idleTimeoutMs?: number | undefined;
  readonly now?: () => number;
}

export class SessionRegistry {
  private readonly _sessions = new Map<string, Session>();
  private _nextId = 1;
  private _closingAll: Promise<void> | undefined;
  private _starting = 0;
  private readonly _closing = new Map<Session, Promise<void>>();
  private readonly _lastUsed = new Map<string, number>();
  private readonly _now: () => number;
  private _idleTimer: NodeJS.Timeout | undefined;
  private readonly _listeners = new Set<() => void>();

  constructor(
    private readonly _options: RegistryOptions,
    private readonly _create: SessionFactory,
  ) {
    this._now = _options.now ?? (() => Date.now());
    const idle = _options.idleTimeoutMs ?? 0;
    if (idle > 0) {
      this._idleTimer = setInterval(
        () => this._closeIdle(),
        Math.min(Math.max(idle / 4, 10), 30_000),
      );
      this._idleTimer.unref();
    }
  }

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
        recordDir:
          this._options.recordDir || (request.record ? this._options.defaultRecordDir : undefined),
      });
    } finally {
      this._starting--;
    }
    if (this._closingAll) {
      await session.close();
      throw new TerminalError('SESSION_CLOSED', 'the server is shutting down');
    }
    this._sessions.set(id, session);
    this._lastUsed.set(id, this._now());
    this._changed();
    return session;
  }

  /** The session named by a tool call; counts as activity for the idle timeout. */
  get(sessionId: string): Session {
    const session = this._sessions.get(sessionId);
    if (session) this._lastUsed.set(sessionId, this._now());
    if (!session) {
      throw new TerminalError(
        'SESSION_NOT_FOUND',
        `session "${sessionId}" not found; call terminal_list to see open sessions`,
        { sessionId },
      );
    }
    return session;
  }

  /** Calls `listener` when a session is added or removed; returns an unsubscribe function. */
  onChange(listener: () => void): () => void {
    this._listeners.add(listener);
    return () => this._listeners.delete(listener);
  }

  /** The open session with this id, without counting as activity; undefined when none. */
  find(sessionId: string): Session | undefined {
    return this._sessions.get(sessionId);
  }

  private _changed(): void {
    for (const listener of this._listeners) listener();
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
    this._lastUsed.delete(sessionId);
    this._changed();
    const closing = session.close();
    this._closing.set(session, closing);
    try {
      await closing;
    } finally {
      this._closing.delete(session);
    }
    return true;
  }

  private _closeIdle(): void {
    const limit = this._options.idleTimeoutMs ?? 0;
    const now = this._now();
    for (const [id, used] of this._lastUsed) {
      const busy = (this._sessions.get(id)?.queue.size ?? 0) > 0;
      if (!busy && now - used >= limit) void this.close(id);
    }
  }

  /** Closes every session, including those already closing; refuses new ones from now on. */
  closeAll(): Promise<void> {
    clearInterval(this._idleTimer);
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
