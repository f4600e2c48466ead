/**
 * The wait loop (session/wait.ts) on a fake clock and a fake session: the deadline and the last
 * look at it, cancellation, a check made stale by output, the early stop for input (confirmed,
 * then decided by one more check), a match that comes late, and the program exiting first.
 * Time moves only when a test advances it, so each case runs in milliseconds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { INPUT_QUIET_MS } from '../../../src/session/early-stop.js';
import {
  type WaitCheck,
  type WaitOptions,
  type WaitOutcome,
  type WaitSource,
  waitUntil,
} from '../../../src/session/wait.js';
import { TerminalError } from '../../../src/shared/errors.js';
import { FakeClock, flushPromises as flush } from '../../helpers/fakes.js';

/** A session whose facts the test sets. */
class FakeSource implements WaitSource {
  isClosed = false;
  status: 'running' | 'exited' = 'running';
  detectsInputWait = true;
  presence = { typists: 0, typedCount: 0 };
  parseCount = 0;
  pendingBytes = 0;
  pendingInputBytes = 0;
  /** The program's wait for input (Infinity: no timeout); undefined: it does not wait. */
  waitingMs: number | undefined;
  /** Runs during the output barrier of a confirmation. */
  barrier = () => {};
  readonly listeners = new Set<() => void>();

  isFinal = () => this.status === 'exited' || this.isClosed;
  isSynchronizedUpdate = () => false;
  othersIdle = () => true;
  inputWait = () =>
    this.waitingMs === undefined ? undefined : { waitMs: this.waitingMs, cpuMs: 0 };
  confirmInputWait = async () => {
    this.barrier();
    return this.waitingMs !== undefined;
  };
  closedError = () => new TerminalError('SESSION_CLOSED', 'closed');
  exitedError = (what: string) => new TerminalError('SESSION_EXITED', `exited waiting for ${what}`);

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A chunk of output finished parsing. */
  output(): void {
    this.parseCount++;
    for (const listener of this.listeners) listener();
  }
}

/** A check that holds once `holds` is set, counting its runs and the times they started. */
function condition(clock: FakeClock): { holds: boolean; runs: number[]; check: WaitCheck } {
  const state: { holds: boolean; runs: number[]; check: WaitCheck } = {
    holds: false,
    runs: [] as number[],
    check: async () => {
      state.runs.push(clock.now());
      return state.holds ? { reason: 'matched' } : undefined;
    },
  };
  return state;
}

/** Starts a wait and records how it ended. */
function start(
  source: FakeSource,
  check: WaitCheck,
  clock: FakeClock,
  options: Partial<WaitOptions> = {},
) {
  let outcome: WaitOutcome | undefined;
  let error: Error | undefined;
  const waiting = waitUntil(source, check, { timeoutMs: 5000, what: 'it', ...options }, clock);
  waiting.then(
    (o) => {
      outcome = o;
    },
    (e: Error) => {
      error = e;
    },
  );
  return { outcome: () => outcome, error: () => error };
}

describe('waitUntil', () => {
  it('ends at the deadline with timeout, after one last check at the deadline', async () => {
    const clock = new FakeClock();
    const source = new FakeSource();
    const c = condition(clock);
    const progress: number[] = [];
    const ended = start(source, c.check, clock, {
      timeoutMs: 2500,
      onProgress: (elapsed) => progress.push(elapsed),
    });
    await clock.advance(2499);
    assert.equal(ended.outcome(), undefined, 'still waiting just before the deadline');
    await clock.advance(1);
    assert.deepEqual(ended.outcome(), { reason: 'timeout', elapsedMs: 2500 });
    assert.deepEqual(c.runs, [0, 2500], 'checked at the start and at the deadline');
    assert.deepEqual(progress, [1000, 2000], 'progress about once a second');
    assert.equal(clock.pendingTimers, 0, 'no timer left behind');
    assert.equal(source.listeners.size, 0, 'unsubscribed');
  });

  it('matches a condition that comes at the last moment, not a timeout', async () => {
    const clock = new FakeClock();
    const source = new FakeSource();
    const c = condition(clock);
    const ended = start(source, c.check, clock, { timeoutMs: 1000 });
    await clock.advance(999);
    // The screen changed, but the next check is due only after the deadline's.
    c.holds = true;
    await clock.advance(1);
    assert.deepEqual(ended.outcome(), { reason: 'matched', elapsedMs: 1000 });
  });

  it('is cancelled by its signal: CANCELLED, the running check aborted, nothing left', async () => {
    const clock = new FakeClock();
    const source = new FakeSource();
    const controller = new AbortController();
    let checkSignal: AbortSignal | undefined;
    const pending = new Promise<undefined>(() => {});
    const ended = start(
      source,
      (signal) => {
        checkSignal = signal;
        return pending;
      },
      clock,
      { signal: controller.signal },
    );
    await clock.advance(100);
    controller.abort();
    await flush();
    const error = ended.error();
    assert.ok(error instanceof TerminalError);
    assert.equal(error.code, 'CANCELLED');
    assert.equal(checkSignal?.aborted, true, 'the check in the match worker is stopped');
    assert.equal(clock.pendingTimers, 0);
    assert.equal(source.listeners.size, 0);
  });

  it('checks again when output came during a check (its result is stale)', async () => {
    const clock = new FakeClock();
    const source = new FakeSource();
    const runs: number[] = [];
    let release: (() => void) | undefined;
    let holds = false;
    const check: WaitCheck = async () => {
      runs.push(clock.now());
      // The first check takes 50 ms (a slow pattern); it sees the screen from before.
      const sawHolds = holds;
      if (runs.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return sawHolds ? { reason: 'matched' } : undefined;
    };
    const ended = start(source, check, clock);
    await clock.advance(10);
    holds = true;
    source.output();
    await clock.advance(40);
    release?.();
    await flush();
    assert.equal(ended.outcome(), undefined, 'the stale result is not the outcome');
    await clock.advance(0);
    assert.deepEqual(ended.outcome(), { reason: 'matched', elapsedMs: 50 });
    assert.deepEqual(runs, [0, 50], 'checked again at once: the last check was 50 ms ago');
  });

  it('checks at most every SAMPLE_MS while output streams in', async () => {
    const clock = new FakeClock();
    const source = new FakeSource();
    const c = condition(clock);
    start(source, c.check, clock, { timeoutMs: 1000 });
    for (let t = 0; t < 100; t++) {
      source.output();
      await clock.advance(1);
    }
    assert.deepEqual(c.runs, [0, 16, 32, 48, 64, 80, 96]);
  });

  it('stops early, reason input, once the program has waited for input quietly and a check confirms', async () => {
    const clock = new FakeClock();
    const source = new FakeSource();
    const c = condition(clock);
    const ended = start(source, c.check, clock, { stopOnInput: true });
    source.waitingMs = Number.POSITIVE_INFINITY;
    await clock.advance(INPUT_QUIET_MS + 20);
    const outcome = ended.outcome();
    assert.ok(outcome, 'ended before the 5 s timeout');
    assert.equal(outcome.reason, 'input');
    assert.equal(outcome.quietMs, INPUT_QUIET_MS);
    assert.equal(outcome.elapsedMs, INPUT_QUIET_MS + 20);
    assert.equal(c.runs.at(-1), INPUT_QUIET_MS + 20, 'one more check on that screen decided');
    assert.equal(clock.pendingTimers, 0);
  });

  it('does not stop early without stopOnInput, or while a person can answer', async () => {
    for (const setup of [
      { stopOnInput: false, typists: 0 },
      { stopOnInput: true, typists: 1 },
    ]) {
      const clock = new FakeClock();
      const source = new FakeSource();
      source.presence.typists = setup.typists;
      source.waitingMs = Number.POSITIVE_INFINITY;
      const ended = start(source, condition(clock).check, clock, {
        stopOnInput: setup.stopOnInput,
        timeoutMs: 2000,
      });
      await clock.advance(2000);
      assert.equal(ended.outcome()?.reason, 'timeout', JSON.stringify(setup));
    }
  });

  it('counts the quiet afresh once the person who could answer leaves', async () => {
    const clock = new FakeClock();
    const source = new FakeSource();
    source.presence.typists = 1;
    source.waitingMs = Number.POSITIVE_INFINITY;
    const ended = start(source, condition(clock).check, clock, { stopOnInput: true });
    await clock.advance(1000);
    source.presence.typists = 0;
    await clock.advance(INPUT_QUIET_MS);
    assert.equal(ended.outcome(), undefined, 'not at once: the quiet began when the person left');
    await clock.advance(40);
    assert.equal(ended.outcome()?.reason, 'input');
  });

  it('starts over when output arrives with the confirmation', async () => {
    const clock = new FakeClock();
    const source = new FakeSource();
    const ended = start(source, condition(clock).check, clock, { stopOnInput: true });
    source.waitingMs = Number.POSITIVE_INFINITY;
    let outputs = 0;
    source.barrier = () => {
      // The program printed something before it read: not a quiet wait.
      if (outputs++ === 0) source.parseCount++;
    };
    await clock.advance(INPUT_QUIET_MS + 20);
    assert.equal(ended.outcome(), undefined, 'no stop on the first confirmation');
    await clock.advance(INPUT_QUIET_MS + 20);
    assert.equal(ended.outcome()?.reason, 'input', 'stops once a whole quiet run is confirmed');
    assert.ok((ended.outcome()?.elapsedMs ?? 0) > 2 * INPUT_QUIET_MS);
  });

  it('starts over when output arrives during the deciding check', async () => {
    const clock = new FakeClock();
    const source = new FakeSource();
    const due = INPUT_QUIET_MS + 20;
    const check: WaitCheck = async () => {
      // The program prints as the screen is checked: it did not only wait.
      if (clock.now() === due) source.output();
      return undefined;
    };
    const ended = start(source, check, clock, { stopOnInput: true });
    source.waitingMs = Number.POSITIVE_INFINITY;
    await clock.advance(due);
    assert.equal(ended.outcome(), undefined, 'no stop on a screen that changed');
    await clock.advance(INPUT_QUIET_MS + 20);
    assert.deepEqual(ended.outcome()?.reason, 'input');
  });

  it('matches, not input, when the deciding check finds the condition come late', async () => {
    const clock = new FakeClock();
    const source = new FakeSource();
    const c = condition(clock);
    const ended = start(source, c.check, clock, { stopOnInput: true });
    source.waitingMs = Number.POSITIVE_INFINITY;
    // The last output parsed just before the confirmation completes the pattern.
    source.barrier = () => {
      c.holds = true;
    };
    await clock.advance(INPUT_QUIET_MS + 20);
    assert.deepEqual(ended.outcome(), { reason: 'matched', elapsedMs: INPUT_QUIET_MS + 20 });
  });

  it('fails with the session error when the program exited before the condition came', async () => {
    const clock = new FakeClock();
    const source = new FakeSource();
    const ended = start(source, condition(clock).check, clock, { what: '/x/ to appear' });
    await clock.advance(100);
    source.status = 'exited';
    source.output();
    await clock.advance(0);
    const error = ended.error();
    assert.ok(error instanceof TerminalError);
    assert.equal(error.code, 'SESSION_EXITED');
    assert.match(error.message, /waiting for \/x\/ to appear/);
  });

  it('fails with SESSION_CLOSED when the session is closed', async () => {
    const clock = new FakeClock();
    const source = new FakeSource();
    const ended = start(source, condition(clock).check, clock);
    await clock.advance(100);
    source.isClosed = true;
    source.output();
    await clock.advance(0);
    assert.equal((ended.error() as TerminalError | undefined)?.code, 'SESSION_CLOSED');
  });

  it('rejects with the error of a check that fails, and leaves nothing behind', async () => {
    const clock = new FakeClock();
    const source = new FakeSource();
    const failure = new TerminalError('INVALID_ARGUMENT', 'the pattern ran out of time');
    let runs = 0;
    const ended = start(
      source,
      async () => {
        if (++runs === 2) throw failure;
        return undefined;
      },
      clock,
    );
    await clock.advance(30);
    source.output();
    await clock.advance(0);
    assert.equal(ended.error(), failure);
    assert.equal(clock.pendingTimers, 0);
    assert.equal(source.listeners.size, 0);
  });

  it('is CANCELLED at once when its signal was aborted before it began, checking nothing', async () => {
    const clock = new FakeClock();
    const source = new FakeSource();
    const c = condition(clock);
    const ended = start(source, c.check, clock, { signal: AbortSignal.abort() });
    await clock.advance(0);
    assert.equal((ended.error() as TerminalError | undefined)?.code, 'CANCELLED');
    assert.deepEqual(c.runs, []);
    assert.equal(clock.pendingTimers, 0);
  });

  it('a deadline that passes during a check: one more check after it, then timeout', async () => {
    const clock = new FakeClock();
    const source = new FakeSource();
    const runs: number[] = [];
    let release: (() => void) | undefined;
    let holds = false;
    const check: WaitCheck = async () => {
      runs.push(clock.now());
      const sawHolds = holds;
      // The check started at 990 takes until the test releases it (at 1040).
      if (clock.now() === 990) await new Promise<void>((resolve) => (release = resolve));
      return sawHolds ? { reason: 'matched' } : undefined;
    };
    const ended = start(source, check, clock, { timeoutMs: 1000 });
    await clock.advance(990);
    source.output();
    await clock.advance(50);
    assert.equal(ended.outcome(), undefined, 'the deadline waits for the running check');
    holds = true;
    release?.();
    await clock.advance(0);
    assert.deepEqual(runs, [0, 990, 1040], 'the last look comes after the deadline');
    assert.deepEqual(ended.outcome(), { reason: 'matched', elapsedMs: 1040 });
  });

  it('checks at once on the exit, not SAMPLE_MS after the last check', async () => {
    const clock = new FakeClock();
    const source = new FakeSource();
    const check: WaitCheck = async () =>
      source.status === 'exited' ? { reason: 'exited' } : undefined;
    const ended = start(source, check, clock);
    await clock.advance(100);
    source.output();
    await clock.advance(5);
    source.status = 'exited';
    source.output();
    await clock.advance(0);
    assert.deepEqual(ended.outcome(), { reason: 'exited', elapsedMs: 105 });
  });

  it('does not stop early where the program cannot be watched, or once a person has typed', async () => {
    const blind = new FakeSource();
    blind.detectsInputWait = false;
    const typed = new FakeSource();
    for (const source of [blind, typed]) {
      const clock = new FakeClock();
      source.waitingMs = Number.POSITIVE_INFINITY;
      const ended = start(source, condition(clock).check, clock, {
        stopOnInput: true,
        timeoutMs: 2000,
      });
      await clock.advance(100);
      if (source === typed) source.presence.typedCount++;
      await clock.advance(1900);
      assert.deepEqual(ended.outcome(), { reason: 'timeout', elapsedMs: 2000 });
    }
  });
});
