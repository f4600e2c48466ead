/**
 * All sessions of the server: ids ("t1", "t2", … never reused), the session limit (running and
 * exited sessions count alike until closed), lookup with SESSION_NOT_FOUND, and closing one or
 * all of them.
 */
import { makeTextSafe } from '../screen/text-safety.js';
import { formatDuration } from '../shared/duration.js';
import { sessionClosedError, TerminalError } from '../shared/errors.js';
import type { LaunchPlan } from './launch.js';
import type { Session, SessionInfo, SessionSpec } from './session.js';

/**
 * Who closed a session: the agent (terminal_close, or terminal_start's autoClose), the server's
 * idle timeout, or its shutdown.
 */
export type CloseCause = 'agent' | 'autoClose' | 'idle' | 'shutdown';

/** How many closed sessions' ids are remembered, to say why a later call finds none. */
const REMEMBERED_CLOSES = 256;

/** Creates a session, spawning its program (loaded lazily: the emulator and PTY code). */
export type SessionFactory = (spec: SessionSpec) => Promise<Session> | Session;

export interface StartRequest {
  readonly plan: LaunchPlan;
  readonly cols: number;
  readonly rows: number;
  /** Record this session even when the server does not record every session. */
  readonly record?: boolean | undefined;
  /** The name the starting MCP client gave in its initialize, for terminal_list. */
  readonly client?: string | undefined;
}

export interface RegistryOptions {
  readonly maxSessions: number;
  readonly scrollbackLines: number;
  /** Bytes of history lines each session's transcript keeps. */
  readonly transcriptBytes?: number | undefined;
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
  /** Aborted by closeAll: closes stop waiting for shells' start-ups (startup-close.ts). */
  private readonly _shutdown = new AbortController();
  private _starting = 0;
  private readonly _closing = new Map<Session, Promise<void>>();
  private readonly _closingIds = new Map<string, Promise<void>>();
  private readonly _starts = new Set<Promise<unknown>>();
  private readonly _lastUsed = new Map<string, number>();
  /** Which MCP client started each session (its initialize name), when it gave one. */
  private readonly _clients = new Map<string, string>();
  /** The last REMEMBERED_CLOSES closed ids, oldest first, and who closed each. */
  private readonly _closed = new Map<string, CloseCause>();
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
    if (this._closingAll) throw sessionClosedError(undefined, 'shutdown');
    if (this._sessions.size + this._starting >= this._options.maxSessions) {
      const max = this._options.maxSessions;
      const sessionIds = [...this._sessions.keys()];
      const open = [
        ...sessionIds.map((id) => `"${id}"`),
        ...(this._starting > 0 ? [`${this._starting} starting`] : []),
      ];
      throw new TerminalError(
        'SESSION_LIMIT',
        `the limit of ${max} session${max === 1 ? '' : 's'} is reached (exited ones count until closed): ${open.join(', ')}; close one with terminal_close`,
        { limit: max, sessionIds },
      );
    }
    const id = `t${this._nextId++}`;
    this._starting++;
    const creating = (async () =>
      this._create({
        id,
        plan: request.plan,
        cols: request.cols,
        rows: request.rows,
        scrollbackLines: this._options.scrollbackLines,
        transcriptBytes: this._options.transcriptBytes,
        recordDir:
          this._options.recordDir || (request.record ? this._options.defaultRecordDir : undefined),
      }))();
    // closeAll waits for starts in flight, including the close of a session spawned too late.
    const settled = creating.then(
      async (session) => {
        if (this._closingAll) await this._track(session, session.close());
      },
      () => undefined,
    );
    this._starts.add(settled);
    let session: Session;
    try {
      session = await creating;
    } finally {
      this._starting--;
      void settled.finally(() => this._starts.delete(settled));
    }
    if (this._closingAll) {
      await settled;
      throw sessionClosedError(id, 'shutdown');
    }
    this._sessions.set(id, session);
    this._lastUsed.set(id, this._now());
    // Shown to other clients in terminal_list: with the screen's stand-ins for control characters.
    if (request.client) this._clients.set(id, makeTextSafe(request.client));
    this._changed();
    return session;
  }

  /** The session named by a tool call; counts as activity for the idle timeout. */
  get(sessionId: string): Session {
    const session = this._sessions.get(sessionId);
    if (session) this._lastUsed.set(sessionId, this._now());
    if (!session) throw this._notFound(sessionId);
    return session;
  }

  /** SESSION_NOT_FOUND, saying why when the id is one this server closed. */
  private _notFound(sessionId: string): TerminalError {
    const cause = this._closed.get(sessionId);
    const why =
      cause === 'idle'
        ? `was closed after ${formatDuration(this._options.idleTimeoutMs ?? 0)} with no tool call naming it (the server's --idle-timeout), and its processes ended`
        : cause === 'autoClose'
          ? 'was closed as terminal_start returned (autoClose)'
          : cause === 'agent'
            ? 'was closed by terminal_close'
            : cause === 'shutdown'
              ? 'was closed as the server shut down'
              : 'not found';
    const next =
      cause === undefined
        ? 'call terminal_list to see open sessions'
        : 'start a new one with terminal_start if you still need it';
    return new TerminalError('SESSION_NOT_FOUND', `session "${sessionId}" ${why}; ${next}`, {
      sessionId,
    });
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
    return [...this._sessions.values()].map((s) => {
      const client = this._clients.get(s.id);
      return client === undefined ? s.info() : { ...s.info(), client };
    });
  }

  /**
   * Closes a session and resolves once its processes are gone: true for the call that closed it,
   * false when it was not open (a call racing another close waits for that close first).
   */
  async close(sessionId: string, cause: CloseCause = 'agent'): Promise<boolean> {
    const session = this._sessions.get(sessionId);
    if (!session) {
      await this._closingIds.get(sessionId)?.catch(() => undefined);
      return false;
    }
    this._sessions.delete(sessionId);
    this._lastUsed.delete(sessionId);
    this._clients.delete(sessionId);
    this._closed.set(sessionId, cause);
    if (this._closed.size > REMEMBERED_CLOSES) {
      this._closed.delete(this._closed.keys().next().value as string);
    }
    this._changed();
    // A shell still starting finishes its start-up first, unless the server is shutting down.
    const startupWait = cause === 'shutdown' ? undefined : this._shutdown.signal;
    await this._track(session, session.close({ startupWait }));
    return true;
  }

  /** Keeps a closing session visible to closeAll and pids() until it has closed. */
  private async _track(session: Session, closing: Promise<void>): Promise<void> {
    this._closing.set(session, closing);
    this._closingIds.set(session.id, closing);
    try {
      await closing;
    } finally {
      this._closing.delete(session);
      this._closingIds.delete(session.id);
    }
  }

  private _closeIdle(): void {
    const limit = this._options.idleTimeoutMs ?? 0;
    const now = this._now();
    for (const [id, used] of this._lastUsed) {
      const session = this._sessions.get(id);
      // A batch running or a person attached (agent-tty attach) is use: the timeout starts over.
      const busy = (session?.queue.size ?? 0) > 0 || (session?.presence.watchers ?? 0) > 0;
      if (busy) this._lastUsed.set(id, now);
      else if (now - used >= limit) void this.close(id, 'idle');
    }
  }

  /** Closes every session, including those already closing; refuses new ones from now on. */
  closeAll(): Promise<void> {
    clearInterval(this._idleTimer);
    this._closingAll ??= (async () => {
      // A close waiting for a shell's start-up stops waiting.
      this._shutdown.abort();
      const closes = [...this._sessions.keys()].map((id) => this.close(id, 'shutdown'));
      // Starts in flight close their session themselves once spawned (see start).
      await Promise.allSettled([...closes, ...this._closing.values(), ...this._starts]);
    })();
    return this._closingAll;
  }

  /** Session ids (leader pids) of every session not yet fully closed, for a last-resort kill. */
  pids(): number[] {
    return this._unclosed().map((s) => s.pid);
  }

  /** Removes every open or closing session's private directories now (see Session). */
  removePrivateFiles(): void {
    for (const session of this._unclosed()) session.removePrivateFiles();
  }

  /**
   * Session ids and terminals of every session not yet fully closed, for a last-resort kill and
   * to tell the programs in them (attach refuses them), with each one's id (t3).
   */
  terminals(): { sid: number; ttyPath: string; sessionId: string }[] {
    return this._unclosed().map((s) => ({
      sid: s.pid,
      ttyPath: s.ttyPath,
      sessionId: s.id,
    }));
  }

  /** Every session open or still closing. */
  private _unclosed(): Session[] {
    return [...this._sessions.values(), ...this._closing.keys()];
  }
}
