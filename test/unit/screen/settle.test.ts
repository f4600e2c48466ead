import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type Clock,
  PROBE_MS,
  type SettleOptions,
  type SettleResult,
  type SettleSource,
  waitForSettle,
} from '../../../src/screen/settle.js';
import { TerminalError } from '../../../src/shared/errors.js';

/** A clock whose time moves only when the test advances it; timers fire in due order. */
class FakeClock implements Clock {
  private _now = 1000;
  private _nextId = 1;
  private _timers = new Map<number, { at: number; fn: () => void }>();

  now(): number {
    return this._now;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this._nextId++;
    this._timers.set(id, { at: this._now + ms, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this._timers.delete(handle as number);
  }

  get pendingTimers(): number {
    return this._timers.size;
  }

  /** Moves time forward by `ms`, firing every timer due on the way at its own time. */
  advance(ms: number): void {
    const end = this._now + ms;
    for (;;) {
      let due: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this._timers) {
        if (entry[1].at <= end && (!due || entry[1].at < due[1].at)) due = entry;
      }
      if (!due) break;
      this._timers.delete(due[0]);
      this._now = Math.max(this._now, due[1].at);
      due[1].fn();
    }
    this._now = end;
  }
}

class FakeSource implements SettleSource {
  screen = 'screen-0';
  parseCount = 0;
  lastParsedAt: number;
  pendingBytes = 0;
  sync = false;
  final = false;
  isWaitingForInput?: () => boolean;
  confirmInputWait?: () => Promise<boolean>;
  readonly listeners = new Set<() => void>();

  constructor(private readonly _clock: FakeClock) {
    this.lastParsedAt = _clock.now();
  }

  fingerprint = () => this.screen;
  isSynchronizedUpdate = () => this.sync;
  isFinal = () => this.final;

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A chunk finished parsing now; `screen` is what the screen shows afterwards. */
  output(screen = this.screen): void {
    this.parseCount++;
    this.lastParsedAt = this._clock.now();
    this.screen = screen;
    this.emit();
  }

  emit(): void {
    for (const listener of this.listeners) listener();
  }
}

/** Starts an observation on a fake source and clock (options default to quiet 100, timeout 1000). */
function observe(options: Partial<SettleOptions> = {}, prepare?: (source: FakeSource) => void) {
  const clock = new FakeClock();
  const source = new FakeSource(clock);
  prepare?.(source);
  let settled: SettleResult | undefined;
  const promise = waitForSettle(source, { quietMs: 100, timeoutMs: 1000, ...options }, clock);
  promise.then(
    (r) => {
      settled = r;
    },
    () => {},
  );
  return {
    clock,
    source,
    promise,
    /** The result so far (a function, so TypeScript does not narrow it across awaits). */
    result: () => settled,
    /** Advances the clock, then lets promise callbacks run. */
    advance: async (ms: number) => {
      clock.advance(ms);
      await Promise.resolve();
      await Promise.resolve();
    },
  };
}

const isCancelled = (err: unknown) => err instanceof TerminalError && err.code === 'CANCELLED';

describe('waitForSettle', () => {
  it('settles quiet after quietMs without change, and cleans up', async () => {
    const { clock, source, result, advance } = observe();
    await advance(99);
    assert.equal(result(), undefined);
    await advance(1);
    assert.deepEqual(result(), { settled: true, reason: 'quiet', elapsedMs: 100 });
    assert.equal(clock.pendingTimers, 0);
    assert.equal(source.listeners.size, 0);
  });

  it('restarts the quiet interval on a visible change', async () => {
    const { source, result, advance } = observe();
    await advance(60);
    source.output('screen-1');
    await advance(99);
    assert.equal(result(), undefined);
    await advance(1);
    assert.deepEqual(result(), { settled: true, reason: 'quiet', elapsedMs: 160 });
  });

  it('counts quiet from when the change was parsed, not when it was sampled', async () => {
    const { source, result, advance } = observe();
    await advance(5);
    source.output('screen-1'); // sampled at most every SAMPLE_MS, so seen later than parsed
    await advance(100);
    assert.deepEqual(result(), { settled: true, reason: 'quiet', elapsedMs: 105 });
  });

  it('does not count identical output as change', async () => {
    const { source, result, advance } = observe();
    for (let t = 20; t <= 80; t += 20) {
      await advance(20);
      source.output('screen-0');
    }
    await advance(20);
    assert.deepEqual(result(), { settled: true, reason: 'quiet', elapsedMs: 100 });
  });

  const busy: [string, number, (s: FakeSource) => void][] = [
    ['unparsed output is pending', 100, (s) => (s.pendingBytes = 10)],
    ['unparsed output is pending, even with quietMs 0', 0, (s) => (s.pendingBytes = 10)],
    ['a synchronized update is in progress', 100, (s) => (s.sync = true)],
  ];
  for (const [name, quietMs, makeBusy] of busy) {
    it(`never settles while ${name}: timeout at the deadline`, async () => {
      const { clock, result, advance } = observe({ quietMs, timeoutMs: 500 }, makeBusy);
      await advance(499);
      assert.equal(result(), undefined);
      await advance(1);
      assert.deepEqual(result(), { settled: false, reason: 'timeout', elapsedMs: 500 });
      assert.equal(clock.pendingTimers, 0);
    });
  }

  it('times out when the screen keeps changing', async () => {
    const { source, result, advance } = observe({ timeoutMs: 300 });
    for (let i = 1; i <= 20 && !result(); i++) {
      await advance(50);
      source.output(`screen-${i}`);
    }
    assert.deepEqual(result(), { settled: false, reason: 'timeout', elapsedMs: 300 });
  });

  it('reports exited at once when the source is final', async () => {
    const { result, advance } = observe({}, (s) => (s.final = true));
    await advance(0);
    assert.deepEqual(result(), { settled: true, reason: 'exited', elapsedMs: 0 });
  });

  it('reports exited as soon as the exit is announced, once output is parsed', async () => {
    const { source, result, advance } = observe({ quietMs: 500 });
    await advance(30);
    source.pendingBytes = 4;
    source.final = true;
    source.emit();
    await advance(0);
    assert.equal(result(), undefined);
    await advance(10);
    source.pendingBytes = 0;
    source.output('last');
    await advance(0);
    assert.deepEqual(result(), { settled: true, reason: 'exited', elapsedMs: 40 });
  });

  it('settles on input once the program waits for input for inputGraceMs', async () => {
    const { result, advance } = observe({ quietMs: 500, inputGraceMs: 20 }, (s) => {
      s.isWaitingForInput = () => true;
    });
    await advance(19);
    assert.equal(result(), undefined);
    await advance(1);
    assert.deepEqual(result(), { settled: true, reason: 'input', elapsedMs: 20 });
  });

  it('keeps probing until the program waits for input', async () => {
    let waiting = false;
    const { result, advance } = observe({ quietMs: 500, inputGraceMs: 20 }, (s) => {
      s.isWaitingForInput = () => waiting;
    });
    await advance(50);
    assert.equal(result(), undefined);
    waiting = true;
    await advance(PROBE_MS);
    const elapsedMs = result()?.elapsedMs ?? 0;
    assert.equal(result()?.reason, 'input');
    assert.ok(elapsedMs > 50 && elapsedMs <= 50 + PROBE_MS, `elapsed ${elapsedMs}`);
  });

  const noInputWait: [string, ((s: FakeSource) => void) | undefined][] = [
    ['the program never waits for input', (s) => (s.isWaitingForInput = () => false)],
    ['the source cannot tell', undefined],
  ];
  for (const [name, prepare] of noInputWait) {
    it(`falls back to quiet when ${name}`, async () => {
      const { result, advance } = observe({ quietMs: 200, inputGraceMs: 20 }, prepare);
      await advance(199);
      assert.equal(result(), undefined);
      await advance(1);
      assert.deepEqual(result(), { settled: true, reason: 'quiet', elapsedMs: 200 });
    });
  }

  it('returns at once with quietMs 0 when nothing is pending', async () => {
    const { result, advance } = observe({ quietMs: 0 });
    await advance(0);
    assert.deepEqual(result(), { settled: true, reason: 'quiet', elapsedMs: 0 });
  });

  it('rejects with CANCELLED when the signal aborts, and cleans up', async () => {
    const controller = new AbortController();
    const { clock, source, promise, result, advance } = observe({ signal: controller.signal });
    await advance(50);
    controller.abort();
    await assert.rejects(promise, isCancelled);
    assert.equal(result(), undefined);
    assert.equal(clock.pendingTimers, 0);
    assert.equal(source.listeners.size, 0);
  });

  it('rejects at once when the signal was already aborted', async () => {
    await assert.rejects(observe({ signal: AbortSignal.abort() }).promise, isCancelled);
  });

  it('passes a TerminalError abort reason through', async () => {
    const reason = new TerminalError('SESSION_CLOSED', 'closed');
    const { promise } = observe({ signal: AbortSignal.abort(reason) });
    await assert.rejects(promise, (err) => err === reason);
  });
  it('settles on an input wait only once the barrier confirms it', async () => {
    const confirms: ((ok: boolean) => void)[] = [];
    const { source, result, advance } = observe({ quietMs: 500, inputGraceMs: 20 }, (s) => {
      s.isWaitingForInput = () => true;
      s.confirmInputWait = () => new Promise((resolve) => confirms.push(resolve));
    });
    await advance(20);
    assert.equal(confirms.length, 1, 'one confirmation at a time');
    await advance(20);
    assert.equal(confirms.length, 1);
    // Output that was still on its way arrives during the barrier: not settled yet.
    source.output('screen-1');
    confirms[0]?.(true);
    await advance(0);
    assert.equal(result(), undefined);
    await advance(25);
    assert.equal(confirms.length, 2, 'confirms again after the grace');
    confirms[1]?.(false);
    await advance(0);
    assert.equal(result(), undefined, 'a failed confirmation does not settle');
    await advance(PROBE_MS);
    confirms[2]?.(true);
    await advance(0);
    assert.equal(result()?.reason, 'input');
  });

  it('holds the quiet verdict while a program that waits has output on its way', async () => {
    // A loaded machine: the program drew, then waits; its output reaches the screen only when
    // the barrier brings it, 400 ms later, long after the quiet interval.
    const confirms: ((ok: boolean) => void)[] = [];
    const { source, result, advance } = observe({ quietMs: 250, inputGraceMs: 20 }, (s) => {
      s.isWaitingForInput = () => true;
      s.confirmInputWait = () => new Promise((resolve) => confirms.push(resolve));
    });
    await advance(400);
    assert.equal(result(), undefined, 'a blank screen is not called settled');
    assert.equal(confirms.length, 1, 'one confirmation at a time');
    source.output('screen-1');
    confirms[0]?.(true);
    await advance(0);
    assert.equal(result(), undefined, 'the confirmation saw output arrive');
    await advance(20);
    confirms[1]?.(true);
    await advance(0);
    assert.equal(result()?.reason, 'input', 'settled on the drawn screen');
  });

  it('settles on quiet as before when the program does not wait for input', async () => {
    const { result, advance } = observe({ quietMs: 250, inputGraceMs: 20 }, (s) => {
      s.isWaitingForInput = () => false;
      s.confirmInputWait = () => new Promise(() => {});
    });
    await advance(250);
    assert.equal(result()?.reason, 'quiet');
  });
});
