/**
 * The world of the registry model test (test/property/registry.model.test.ts): a fake session
 * with what the registry and the tools use (id, pid, status, info(), close(), a real
 * ActionQueue, an observation), and records of every start, request and close with what must
 * become of it. Work finishes, and closes end, only when the fast-check scheduler says so.
 */
import type fc from 'fast-check';
import { ActionQueue } from '../../src/session/action-queue.js';
import type { LaunchPlan } from '../../src/session/launch.js';
import type { SessionRegistry } from '../../src/session/registry.js';
import { cancelledError, TerminalError } from '../../src/shared/errors.js';

/** A launch plan for registry tests whose sessions are fakes: nothing is spawned from it. */
export const PLAN: LaunchPlan = {
  file: '/bin/sh',
  args: [],
  cwd: '/',
  env: {},
  command: null,
  login: false,
  sessionHistory: false,
};

export type Outcome =
  | { status: 'fulfilled'; value: unknown }
  | { status: 'rejected'; reason: unknown };

export type RequestKind = 'input' | 'resize' | 'snapshot';

export interface RequestRecord {
  readonly seq: number;
  readonly kind: RequestKind;
  readonly sessionId: string;
  readonly session: FakeSession | undefined;
  readonly fails: boolean;
  readonly honorsAbort: boolean;
  /** Scheduler steps its job takes. */
  readonly steps: number;
  readonly controller: AbortController;
  started: boolean;
  finished: boolean;
  cancelledBeforeStart: boolean;
  /** Why its job's signal must fire: running when its request was cancelled or it closed. */
  expectedAbort: 'CANCELLED' | 'SESSION_CLOSED' | undefined;
  signal: AbortSignal | undefined;
  /** The code it must be refused with at once, or undefined when it was accepted. */
  refusedWith: string | undefined;
  outcome: Outcome | undefined;
}

export type StartPlan = 'ok' | 'slow' | 'throws' | 'slow-throws';

export interface StartRecord {
  readonly plan: StartPlan;
  /** SESSION_LIMIT or SESSION_CLOSED when it must be refused before spawning. */
  readonly refusedWith: string | undefined;
  factoryCalled: boolean;
  /** The id the registry gave it, once it spawned. */
  id: string | undefined;
  session: FakeSession | undefined;
  outcome: Outcome | undefined;
}

export interface CloseRecord {
  readonly sessionId: string;
  readonly expected: boolean;
  /** The session this id named, if it was ever created. */
  readonly session: FakeSession | undefined;
  /** Whether that session's own close had finished when this close resolved. */
  closeFinishedAtReply: boolean | undefined;
  outcome: Outcome | undefined;
}

export interface CloseAllRecord {
  /** Sessions retained or closing when closeAll was called. */
  readonly covers: FakeSession[];
  /** Starts whose program was being spawned when closeAll was called. */
  readonly startsInFlight: StartRecord[];
  finishedAtReply: FakeSession[] | undefined;
  sizeAtReply: number | undefined;
  outcome: Outcome | undefined;
}

export class World {
  readonly sessions: FakeSession[] = [];
  readonly starts: StartRecord[] = [];
  readonly requests: RequestRecord[] = [];
  readonly closes: CloseRecord[] = [];
  readonly closeAlls: CloseAllRecord[] = [];
  /** Broken invariants seen where throwing would only reject one promise. */
  readonly violations: string[] = [];
  /** Factory calls whose outcome the scheduler has not released yet. */
  pendingFactories = 0;
  closeAllCalled = false;
  nextPlan: StartPlan = 'ok';
  registry!: SessionRegistry;
  private _nextPid = 1000;

  constructor(
    readonly scheduler: fc.Scheduler,
    readonly maxSessions: number,
  ) {}

  newPid(): number {
    return this._nextPid++;
  }

  byId(id: string): FakeSession | undefined {
    return this.sessions.find((s) => s.id === id);
  }

  /** Sessions the registry must hold now: started, not asked to close. */
  retained(): FakeSession[] {
    return this.sessions.filter((s) => s.startResolved && !s.closeCalls);
  }
}

export const closedError = (id: string) =>
  new TerminalError('SESSION_CLOSED', `session "${id}" was closed`, { sessionId: id });

export class FakeSession {
  readonly queue = new ActionQueue();
  status: 'running' | 'exited' = 'running';
  closeCalls = 0;
  closeFinished = false;
  /** The registry's start() has resolved with this session. */
  startResolved = false;
  /** Jobs of the queue running now. */
  running = 0;
  readonly startedJobs: number[] = [];
  private readonly _observers = new Set<(reason: unknown) => void>();

  constructor(
    readonly id: string,
    readonly pid: number,
    private readonly _world: World,
  ) {}

  get closed(): boolean {
    return this.closeCalls > 0;
  }

  info() {
    return {
      sessionId: this.id,
      command: null,
      cwd: '/',
      cols: 80,
      rows: 24,
      status: this.status,
      pid: this.pid,
      startedAt: new Date(0).toISOString(),
    };
  }

  exit(): void {
    if (!this.closed) this.status = 'exited';
  }

  assertRunning(): void {
    if (this.closed) throw closedError(this.id);
    if (this.status === 'exited') {
      throw new TerminalError('SESSION_EXITED', `session "${this.id}" has exited`, {});
    }
  }

  /** Like Session.close: cancels the queue at once, then ends the processes (scheduled). */
  close(): Promise<void> {
    this.closeCalls++;
    for (const record of this._world.requests) {
      if (record.session === this && record.started && !record.finished) {
        record.expectedAbort ??= 'SESSION_CLOSED';
      }
    }
    this.queue.close(closedError(this.id));
    for (const wake of this._observers) wake(closedError(this.id));
    return this._world.scheduler
      .schedule(Promise.resolve(), `${this.id} processes gone`)
      .then(() => {
        this.closeFinished = true;
      });
  }

  /** An observation: settles when the scheduler says so, fails once the session closes. */
  observe(signal: AbortSignal): Promise<string> {
    if (this.closed) return Promise.reject(closedError(this.id));
    return new Promise((resolve, reject) => {
      const done = (fn: () => void) => {
        this._observers.delete(fail);
        fn();
      };
      const fail = (reason: unknown) => done(() => reject(reason));
      this._observers.add(fail);
      signal.addEventListener('abort', () => fail(cancelledError(signal)), { once: true });
      void this._world.scheduler
        .schedule(Promise.resolve(), `${this.id} settled`)
        .then(() => done(() => (this.closed ? reject(closedError(this.id)) : resolve('snapshot'))));
    });
  }
}
