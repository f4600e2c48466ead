import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { ActionQueue } from '../../src/session/action-queue.js';
import { TerminalError } from '../../src/shared/errors.js';

/**
 * Model-based test of the per-session queue: random interleavings of runs (jobs that finish when
 * the fast-check scheduler says so), cancellations of waiting or running jobs, and close.
 */

const CLOSED = new TerminalError('SESSION_CLOSED', 'session closed');

type Outcome = { status: 'fulfilled'; value: unknown } | { status: 'rejected'; reason: unknown };

interface JobRecord {
  readonly id: number;
  readonly fails: boolean;
  readonly honorsAbort: boolean;
  readonly controller: AbortController;
  started: boolean;
  /** The job's own promise has settled (the queue may not have noticed yet). */
  finished: boolean;
  cancelledBeforeStart: boolean;
  /** Why its signal must fire: it was running when its request was cancelled or the queue closed. */
  expectedAbort: 'CANCELLED' | 'SESSION_CLOSED' | undefined;
  signal: AbortSignal | undefined;
  outcome: Outcome | undefined;
}

interface Model {
  jobs: number;
}

interface Real {
  readonly queue: ActionQueue;
  readonly scheduler: fc.Scheduler;
  readonly jobs: JobRecord[];
  readonly startOrder: number[];
  /** Broken invariants seen inside jobs, where throwing would only reject that job. */
  readonly violations: string[];
  running: number;
  closed: boolean;
}

class RunCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly fails: boolean,
    readonly honorsAbort: boolean,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const record: JobRecord = {
      id: real.jobs.length,
      fails: this.fails,
      honorsAbort: this.honorsAbort,
      controller: new AbortController(),
      started: false,
      finished: false,
      cancelledBeforeStart: false,
      expectedAbort: undefined,
      signal: undefined,
      outcome: undefined,
    };
    real.jobs.push(record);
    model.jobs++;
    const job = (signal: AbortSignal) => {
      if (record.cancelledBeforeStart) real.violations.push(`cancelled job ${record.id} started`);
      if (real.running !== 0) real.violations.push(`job ${record.id} started while another ran`);
      if (real.closed) real.violations.push(`job ${record.id} started after close`);
      real.running++;
      record.started = true;
      record.signal = signal;
      real.startOrder.push(record.id);
      return new Promise<number>((resolve, reject) => {
        const settle = (fn: () => void) => {
          if (record.finished) return;
          record.finished = true;
          real.running--;
          fn();
        };
        if (this.honorsAbort) {
          signal.addEventListener('abort', () => settle(() => reject(signal.reason)));
        }
        void real.scheduler.schedule(Promise.resolve(), `job ${record.id} ends`).then(() => {
          if (this.fails) settle(() => reject(new Error(`job ${record.id} failed`)));
          else settle(() => resolve(record.id));
        });
      });
    };
    real.queue.run(job, record.controller.signal).then(
      (value) => {
        record.outcome = { status: 'fulfilled', value };
      },
      (reason: unknown) => {
        record.outcome = { status: 'rejected', reason };
      },
    );
  }
  toString = () =>
    `run(${this.fails ? 'fails' : 'succeeds'}${this.honorsAbort ? ', honors abort' : ''})`;
}

class CancelCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.jobs > 0;
  async run(_model: Model, real: Real): Promise<void> {
    const record = real.jobs[this.pick % real.jobs.length] as JobRecord;
    if (!record.controller.signal.aborted && !real.closed) {
      // Not started and not closed means it is still waiting in the queue.
      if (!record.started) record.cancelledBeforeStart = true;
      else if (!record.finished) record.expectedAbort ??= 'CANCELLED';
    }
    record.controller.abort();
  }
  toString = () => `cancel(${this.pick})`;
}

class CloseCommand implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_model: Model, real: Real): Promise<void> {
    closeQueue(real);
  }
  toString = () => 'close';
}

function closeQueue(real: Real): void {
  if (!real.closed) {
    for (const record of real.jobs) {
      if (record.started && !record.finished) record.expectedAbort ??= 'SESSION_CLOSED';
    }
  }
  real.closed = true;
  real.queue.close(CLOSED);
}

const isTerminalError = (reason: unknown, code: string) =>
  reason instanceof TerminalError && reason.code === code;

function checkFinalState(real: Real): void {
  assert.deepEqual(real.violations, []);
  assert.deepEqual(
    real.startOrder,
    [...real.startOrder].sort((a, b) => a - b),
    'jobs started out of order',
  );
  for (const record of real.jobs) {
    const { outcome } = record;
    assert.ok(outcome, `job ${record.id} was left pending`);
    if (record.cancelledBeforeStart) {
      assert.equal(record.started, false);
      assert.ok(outcome.status === 'rejected' && isTerminalError(outcome.reason, 'CANCELLED'));
    } else if (!record.started) {
      assert.ok(outcome.status === 'rejected' && outcome.reason === CLOSED, `job ${record.id}`);
    } else if (record.expectedAbort) {
      const reason = record.expectedAbort === 'SESSION_CLOSED' ? CLOSED : undefined;
      assert.ok(record.signal?.aborted, `running job ${record.id} was not aborted`);
      assert.ok(isTerminalError(record.signal.reason, record.expectedAbort));
      if (reason) assert.equal(record.signal.reason, reason);
      if (record.honorsAbort) {
        assert.ok(outcome.status === 'rejected' && outcome.reason === record.signal.reason);
      }
    } else if (outcome.status === 'fulfilled') {
      assert.equal(record.fails, false);
      assert.equal(outcome.value, record.id);
    } else {
      const aborted =
        record.honorsAbort &&
        (outcome.reason === CLOSED || isTerminalError(outcome.reason, 'CANCELLED'));
      assert.ok(aborted || (record.fails && outcome.reason instanceof Error), `job ${record.id}`);
    }
  }
  // FIFO without skipping: a job started only after every earlier job that could run did.
  const lastStarted = real.startOrder.at(-1) ?? 0;
  for (const record of real.jobs.slice(0, lastStarted)) {
    assert.ok(record.started || record.cancelledBeforeStart, `job ${record.id} was skipped`);
  }
}

const commands = fc.commands(
  [
    fc.tuple(fc.boolean(), fc.boolean()).map(([fails, honors]) => new RunCommand(fails, honors)),
    fc.tuple(fc.boolean(), fc.boolean()).map(([fails, honors]) => new RunCommand(fails, honors)),
    fc.nat().map((pick) => new CancelCommand(pick)),
    fc.constant(new CloseCommand()),
  ],
  { maxCommands: 40 },
);

it('ActionQueue model: FIFO, one job at a time, cancelled jobs never run, all settled on close', async () => {
  await fc.assert(
    fc.asyncProperty(fc.scheduler(), commands, async (scheduler, cmds) => {
      const real: Real = {
        queue: new ActionQueue(),
        scheduler,
        jobs: [],
        startOrder: [],
        violations: [],
        running: 0,
        closed: false,
      };
      await fc.scheduledModelRun(scheduler, () => ({ model: { jobs: 0 }, real }), cmds);
      closeQueue(real);
      await scheduler.waitIdle();
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(real.running, 0);
      assert.equal(real.queue.size, 0);
      checkFinalState(real);
    }),
    { numRuns: 300 },
  );
});
