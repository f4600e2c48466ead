/**
 * Model-based test of the session registry with its per-session queues: random
 * interleavings under fc.scheduler() of starts (instant, slow, failing to spawn at once or
 * later), input and resize jobs through the queue, snapshots, process exits, request
 * cancellations, closes and closeAll, on a real SessionRegistry and ActionQueue with fake
 * sessions (helpers/registry-world.ts). The queue alone is action-queue.model.test.ts's.
 *
 * Invariants: at most maxSessions retained, starts in flight included; ids never reused; one job
 * at a time per session, in FIFO order; every start, request and close settles, with the outcome
 * its moment allows; a failed start leaves nothing behind; after closeAll nothing is retained and
 * every session was closed exactly once. The strict run adds what the registry breaks today.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { type SessionFactory, SessionRegistry } from '../../src/session/registry.js';
import type { Session } from '../../src/session/session.js';
import { TerminalError } from '../../src/shared/errors.js';
import { checkFinal } from '../helpers/registry-checks.js';
import {
  type CloseAllRecord,
  type CloseRecord,
  FakeSession,
  type Outcome,
  PLAN,
  type RequestKind,
  type RequestRecord,
  type StartPlan,
  type StartRecord,
  World,
} from '../helpers/registry-world.js';

const MAX_SESSIONS = 3;
const NO_SUCH_ID = 't999';

type Cmd = fc.AsyncCommand<World, World>;

function settleInto(record: { outcome: Outcome | undefined }, promise: Promise<unknown>) {
  promise.then(
    (value) => {
      record.outcome = { status: 'fulfilled', value };
    },
    (reason: unknown) => {
      record.outcome = { status: 'rejected', reason };
    },
  );
}

/** The factory: behaves as the start being run planned, and checks what it is asked. */
function factory(world: World, current: () => StartRecord): SessionFactory {
  let lastId = 0;
  return (spec) => {
    const record = current();
    record.factoryCalled = true;
    record.id = spec.id;
    const n = Number(spec.id.slice(1));
    if (!(n > lastId)) world.violations.push(`id ${spec.id} reused or out of order`);
    lastId = n;
    if (world.registry.size + world.pendingFactories >= world.maxSessions) {
      world.violations.push(`spawning ${spec.id} beyond ${world.maxSessions} sessions`);
    }
    const make = () => {
      const session = new FakeSession(spec.id, world.newPid(), world);
      world.sessions.push(session);
      record.session = session;
      return session as unknown as Session;
    };
    const fail = () => new TerminalError('SPAWN_FAILED', `cannot start ${spec.id}`, {});
    if (record.plan === 'ok') return make();
    if (record.plan === 'throws') throw fail();
    world.pendingFactories++;
    return world.scheduler.schedule(Promise.resolve(), `spawn ${spec.id}`).then(() => {
      world.pendingFactories--;
      if (record.plan === 'slow-throws') throw fail();
      return make();
    });
  };
}

/** Invariants that hold between any two steps. `strict` adds the ones the registry breaks. */
function checkNow(world: World, strict: boolean): void {
  const { registry } = world;
  assert.ok(registry.size + world.pendingFactories <= world.maxSessions, 'session limit');
  const listed = registry.list().map((i) => i.sessionId);
  const retained = world.retained().map((s) => s.id);
  assert.deepEqual([...listed].sort(), [...retained].sort(), 'retained sessions');
  if (!strict) return;
  const pids = registry.pids();
  for (const s of world.sessions) {
    if (!s.closeFinished) assert.ok(pids.includes(s.pid), `pids() lacks ${s.id}, not yet closed`);
  }
}

/** Mostly a retained session, the oldest most (so that work queues up); sometimes a closed
 * one, or an id never used. */
function pickId(world: World, pick: number): string {
  const retained = world.retained();
  const choices =
    retained.length > 0 && pick % 5 !== 0
      ? [...retained.slice(0, 1), ...retained]
      : [...world.sessions, undefined];
  return choices[pick % choices.length]?.id ?? NO_SUCH_ID;
}

const PLANS: StartPlan[] = ['ok', 'ok', 'slow', 'slow', 'throws', 'slow-throws'];

class StartCommand implements Cmd {
  constructor(readonly plan: StartPlan) {}
  check = () => true;
  async run(_: World, world: World): Promise<void> {
    const full = world.registry.size + world.pendingFactories >= world.maxSessions;
    const refusedWith = world.closeAllCalled
      ? 'SESSION_CLOSED'
      : full
        ? 'SESSION_LIMIT'
        : undefined;
    const record: StartRecord = {
      plan: this.plan,
      refusedWith,
      factoryCalled: false,
      id: undefined,
      session: undefined,
      outcome: undefined,
    };
    world.starts.push(record);
    const started = world.registry.start({ plan: PLAN, cols: 80, rows: 24 });
    settleInto(record, started);
    started.then(
      (session) => {
        (session as unknown as FakeSession).startResolved = true;
      },
      () => {
        if (record.id && world.registry.has(record.id)) {
          world.violations.push(`failed start ${record.id} left a session behind`);
        }
      },
    );
  }
  toString = () => `start(${this.plan})`;
}

class RequestCommand implements Cmd {
  constructor(
    readonly kind: RequestKind,
    readonly pick: number,
    readonly fails: boolean,
    readonly honorsAbort: boolean,
    readonly steps: number,
  ) {}
  check = (world: Readonly<World>) => world.retained().length > 0 || this.pick % 5 === 0;
  async run(_: World, world: World): Promise<void> {
    const sessionId = pickId(world, this.pick);
    const session = world.byId(sessionId);
    const retained = session !== undefined && world.retained().includes(session);
    const exited = this.kind !== 'snapshot' && session?.status === 'exited';
    const record: RequestRecord = {
      seq: world.requests.length,
      kind: this.kind,
      sessionId,
      session,
      fails: this.fails,
      honorsAbort: this.honorsAbort,
      steps: this.steps,
      controller: new AbortController(),
      started: false,
      finished: false,
      cancelledBeforeStart: false,
      expectedAbort: undefined,
      signal: undefined,
      refusedWith: !retained ? 'SESSION_NOT_FOUND' : exited ? 'SESSION_EXITED' : undefined,
      outcome: undefined,
    };
    world.requests.push(record);
    settleInto(record, submit(world, record));
  }
  toString = () =>
    `${this.kind}(${this.pick}, ${this.steps} steps${this.fails ? ', fails' : ''}${this.honorsAbort ? ', honors abort' : ''})`;
}

/** What a tool handler does: look the session up, then observe or queue a job. */
function submit(world: World, record: RequestRecord): Promise<unknown> {
  try {
    const found = world.registry.get(record.sessionId) as unknown as FakeSession;
    assert.equal(found, record.session, 'the registry returns the session of that id');
    if (record.kind === 'snapshot') return found.observe(record.controller.signal);
    found.assertRunning();
    return found.queue.run(job(world, found, record), record.controller.signal);
  } catch (err) {
    return Promise.reject(err);
  }
}

function job(world: World, session: FakeSession, record: RequestRecord) {
  return (signal: AbortSignal) => {
    const broken = (what: string) => world.violations.push(`job ${record.seq}: ${what}`);
    if (session.running !== 0) broken(`overlapped another job of ${session.id}`);
    if (session.closed) broken(`started after ${session.id} closed`);
    if (record.cancelledBeforeStart) broken('started after its request was cancelled');
    session.running++;
    session.startedJobs.push(record.seq);
    record.started = true;
    record.signal = signal;
    return new Promise<number>((resolve, reject) => {
      const finish = (fn: () => void) => {
        if (record.finished) return;
        record.finished = true;
        session.running--;
        fn();
      };
      if (record.honorsAbort) {
        signal.addEventListener('abort', () => finish(() => reject(signal.reason)), { once: true });
      }
      let work = Promise.resolve();
      for (let step = 1; step <= record.steps; step++) {
        const label = `${record.kind} ${record.seq} step ${step}/${record.steps}`;
        work = work.then(() => world.scheduler.schedule(Promise.resolve(), label));
      }
      void work.then(() =>
        finish(() => (record.fails ? reject(new Error('job failed')) : resolve(record.seq))),
      );
    });
  };
}

class CancelCommand implements Cmd {
  constructor(readonly pick: number) {}
  check = (world: Readonly<World>) => world.requests.length > 0;
  async run(_: World, world: World): Promise<void> {
    // Mostly one still queued, or still waiting for its answer; sometimes any.
    const pending = world.requests.filter((r) => r.outcome === undefined);
    const queued = pending.filter((r) => r.kind !== 'snapshot' && !r.started);
    const pools = [queued, pending, world.requests].filter((pool) => pool.length > 0);
    const pool = pools[this.pick % 3] ?? world.requests;
    const record = pool[this.pick % pool.length] as RequestRecord;
    const accepted = record.kind !== 'snapshot' && record.refusedWith === undefined;
    if (accepted && !record.controller.signal.aborted && !record.session?.closed) {
      if (!record.started) record.cancelledBeforeStart = true;
      else if (!record.finished) record.expectedAbort ??= 'CANCELLED';
    }
    record.controller.abort();
  }
  toString = () => `cancel(${this.pick})`;
}

class ExitCommand implements Cmd {
  constructor(readonly pick: number) {}
  check = (world: Readonly<World>) => world.sessions.length > 0;
  async run(_: World, world: World): Promise<void> {
    world.sessions[this.pick % world.sessions.length]?.exit();
  }
  toString = () => `exit(${this.pick})`;
}

class CloseCommand implements Cmd {
  constructor(readonly pick: number) {}
  check = () => true;
  async run(_: World, world: World): Promise<void> {
    // One time in three, a session still closing: a close racing another.
    const inFlight = world.sessions.filter((s) => s.closed && !s.closeFinished);
    const racing = this.pick % 3 === 0 ? inFlight[this.pick % (inFlight.length || 1)] : undefined;
    const sessionId = racing?.id ?? pickId(world, this.pick);
    const session = world.byId(sessionId);
    const expected = session !== undefined && world.retained().includes(session);
    const record: CloseRecord = {
      sessionId,
      expected,
      session,
      closeFinishedAtReply: undefined,
      outcome: undefined,
    };
    world.closes.push(record);
    const closing = world.registry.close(sessionId);
    settleInto(record, closing);
    closing.then(
      () => {
        record.closeFinishedAtReply = session?.closeFinished;
      },
      () => undefined,
    );
  }
  toString = () => `close(${this.pick})`;
}

class CloseAllCommand implements Cmd {
  check = () => true;
  async run(_: World, world: World): Promise<void> {
    const retained = world.retained();
    const record: CloseAllRecord = {
      covers: world.sessions.filter((s) => retained.includes(s) || (s.closed && !s.closeFinished)),
      startsInFlight: world.starts.filter((s) => s.factoryCalled && s.outcome === undefined),
      finishedAtReply: undefined,
      sizeAtReply: undefined,
      outcome: undefined,
    };
    world.closeAllCalled = true;
    world.closeAlls.push(record);
    const all = world.registry.closeAll();
    settleInto(record, all);
    all.then(
      () => {
        record.finishedAtReply = world.sessions.filter((s) => s.closeFinished);
        record.sizeAtReply = world.registry.size;
      },
      () => undefined,
    );
  }
  toString = () => 'closeAll';
}

/** Wraps each command so the between-steps invariants are checked before it runs. */
function checked(strict: boolean) {
  return (cmd: Cmd): Cmd => ({
    check: (m) => cmd.check(m),
    run: async (m, world) => {
      checkNow(world, strict);
      await cmd.run(m, world);
    },
    toString: () => cmd.toString(),
  });
}

const commands = (strict: boolean) => {
  const request = (kind: RequestKind) =>
    fc
      .tuple(fc.nat(), fc.boolean(), fc.boolean(), fc.integer({ min: 1, max: 3 }))
      .map(([pick, fails, honors, steps]) => new RequestCommand(kind, pick, fails, honors, steps));
  const command: fc.Arbitrary<Cmd> = fc.oneof(
    { arbitrary: fc.constantFrom(...PLANS).map((p) => new StartCommand(p)), weight: 40 },
    { arbitrary: request('input'), weight: 50 },
    { arbitrary: request('resize'), weight: 20 },
    { arbitrary: request('snapshot'), weight: 20 },
    { arbitrary: fc.nat().map((pick) => new CancelCommand(pick)), weight: 30 },
    { arbitrary: fc.nat().map((pick) => new ExitCommand(pick)), weight: 8 },
    { arbitrary: fc.nat().map((pick) => new CloseCommand(pick)), weight: 20 },
    { arbitrary: fc.constant(new CloseAllCommand()), weight: 1 },
  );
  return fc.commands([command.map(checked(strict))], { maxCommands: 60, size: 'large' });
};

async function runModel(scheduler: fc.Scheduler, cmds: Iterable<Cmd>, strict: boolean) {
  const world = new World(scheduler, MAX_SESSIONS);
  world.registry = new SessionRegistry(
    { maxSessions: MAX_SESSIONS, scrollbackLines: 0 },
    factory(world, () => world.starts.at(-1) as StartRecord),
  );
  // Every run ends with closeAll, as the server's shutdown does, while work is still in flight.
  const ending = checked(strict)(new CloseAllCommand());
  const all = (function* () {
    yield* cmds;
    yield ending;
  })();
  await fc.scheduledModelRun(scheduler, () => ({ model: world, real: world }), all);
  await scheduler.waitIdle();
  await new Promise((resolve) => setImmediate(resolve));
  checkFinal(world, strict);
}

it('registry model: limit with starts in flight, ids never reused, one job at a time, every request answered, closeAll closes each session once', async () => {
  await fc.assert(
    fc.asyncProperty(fc.scheduler(), commands(false), (s, cmds) => runModel(s, cmds, false)),
    { numRuns: 250 },
  );
});

it('registry model, strict: a racing close and closeAll wait for closes and starts in flight; pids() lists every session not yet closed', async () => {
  await fc.assert(
    fc.asyncProperty(fc.scheduler(), commands(true), (s, cmds) => runModel(s, cmds, true)),
    { numRuns: 300 },
  );
});
