import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  PROBE_MS,
  SAMPLE_MS,
  type SettleOptions,
  type SettleResult,
  type SettleSource,
  waitForSettle,
} from '../../../src/screen/settle.js';
import { TerminalError } from '../../../src/shared/errors.js';
import { FakeClock } from '../../helpers/fakes.js';

/** When each observation starts on the fake clock. */
const START = 1000;

class FakeSource implements SettleSource {
  screen = 'screen-0';
  parseCount = 0;
  lastParsedAt: number;
  pendingBytes = 0;
  sync = false;
  final = false;
  isWaitingForInput?: () => boolean;
  confirmInputWait?: () => Promise<boolean>;
  isReady?: () => boolean;
  readonly listeners = new Set<() => void>();

  constructor(readonly clock: FakeClock) {
    this.lastParsedAt = clock.now();
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
    this.lastParsedAt = this.clock.now();
    this.screen = screen;
    this.emit();
  }

  emit(): void {
    for (const listener of this.listeners) listener();
  }
}

/** Starts an observation on a fake source and clock (options default to quiet 100, timeout 1000). */
function observe(options: Partial<SettleOptions> = {}, prepare?: (source: FakeSource) => void) {
  const clock = new FakeClock(START);
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
    advance: (ms: number) => clock.advance(ms),
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

  it('fails a confirmation that rejects, and confirms again', async () => {
    let confirms = 0;
    const { result, advance } = observe({ quietMs: 500, inputGraceMs: 20 }, (s) => {
      s.isWaitingForInput = () => true;
      s.confirmInputWait = () =>
        ++confirms === 1 ? Promise.reject(new Error('barrier failed')) : Promise.resolve(true);
    });
    await advance(20);
    assert.equal(confirms, 2, 'a rejected confirmation asks again at once');
    assert.deepEqual(result(), { settled: true, reason: 'input', elapsedMs: 20 });
  });

  it('does not settle on quiet while a program waits, though a confirmation failed', async () => {
    const confirms: ((ok: boolean) => void)[] = [];
    const { result, advance } = observe({ quietMs: 100, inputGraceMs: 20 }, (s) => {
      s.isWaitingForInput = () => true;
      s.confirmInputWait = () => new Promise((resolve) => confirms.push(resolve));
    });
    await advance(150);
    confirms[0]?.(false);
    await advance(0);
    assert.equal(result(), undefined, 'quiet for 150 ms, but the program waits: confirmed first');
    assert.equal(confirms.length, 2);
    confirms[1]?.(true);
    await advance(0);
    assert.deepEqual(result(), { settled: true, reason: 'input', elapsedMs: 150 });
  });

  it('reports the exit that comes during a confirmation, not the input wait', async () => {
    let confirm: ((ok: boolean) => void) | undefined;
    const { source, result, advance } = observe({ quietMs: 500, inputGraceMs: 20 }, (s) => {
      s.isWaitingForInput = () => true;
      s.confirmInputWait = () => new Promise((resolve) => (confirm = resolve));
    });
    await advance(30);
    source.final = true;
    source.emit();
    await advance(0);
    assert.deepEqual(result(), { settled: true, reason: 'exited', elapsedMs: 30 });
    confirm?.(true);
    await advance(0);
    assert.equal(result()?.reason, 'exited');
  });

  it('settles once a synchronized update ends, looking every SAMPLE_MS meanwhile', async () => {
    const { source, result, advance } = observe({}, (s) => (s.sync = true));
    await advance(200);
    assert.equal(result(), undefined);
    source.sync = false;
    await advance(SAMPLE_MS);
    const elapsedMs = result()?.elapsedMs ?? 0;
    assert.equal(result()?.reason, 'quiet', 'the screen has not changed since the start');
    assert.ok(elapsedMs > 200 && elapsedMs <= 200 + SAMPLE_MS, `${elapsedMs}`);
  });
});

describe('waitForSettle before the program is ready (readyTimeoutMs)', () => {
  /** A program ready from `readyAt` ms into the observation on (never when undefined). */
  const readyFrom = (readyAt: number | undefined) => (s: FakeSource) => {
    s.isReady = () => readyAt !== undefined && s.clock.now() - START >= readyAt;
  };

  it('does not call a blank screen settled: starting at the end of the ready wait', async () => {
    const { clock, result, advance } = observe({ readyTimeoutMs: 3000 }, readyFrom(undefined));
    await advance(2999);
    assert.equal(result(), undefined, 'quiet for ~3 s, but not ready');
    await advance(1);
    assert.deepEqual(result(), { settled: false, reason: 'starting', elapsedMs: 3000 });
    assert.equal(clock.pendingTimers, 0);
  });

  it('counts quiet once the program is ready, seen at the next look (every 20 ms)', async () => {
    const { result, advance } = observe({ readyTimeoutMs: 3000 }, readyFrom(305));
    await advance(319);
    assert.equal(result(), undefined);
    await advance(1);
    // Quiet since the start: settled at the first look that sees it ready.
    assert.deepEqual(result(), { settled: true, reason: 'quiet', elapsedMs: 320 });
  });

  it('runs the deadline from readiness, or from the start with strictDeadline', async () => {
    const loose = observe({ readyTimeoutMs: 3000, timeoutMs: 1000 }, (s) => {
      readyFrom(500)(s);
      s.sync = true;
    });
    await loose.advance(1499);
    assert.equal(loose.result(), undefined);
    await loose.advance(1);
    assert.deepEqual(loose.result(), { settled: false, reason: 'timeout', elapsedMs: 1500 });
    const strict = observe({ readyTimeoutMs: 3000, timeoutMs: 1000, strictDeadline: true }, (s) => {
      readyFrom(500)(s);
      s.sync = true;
    });
    await strict.advance(1000);
    assert.deepEqual(strict.result(), { settled: false, reason: 'timeout', elapsedMs: 1000 });
  });

  it('with strictDeadline, a program never ready is starting at the deadline', async () => {
    const { result, advance } = observe(
      { readyTimeoutMs: 3000, timeoutMs: 710, strictDeadline: true },
      readyFrom(undefined),
    );
    await advance(709);
    assert.equal(result(), undefined);
    await advance(1);
    assert.deepEqual(result(), { settled: false, reason: 'starting', elapsedMs: 710 });
  });

  it('a program ready because it waits for input: quiet counts from then, not from the start', async () => {
    const { result, advance } = observe({ readyTimeoutMs: 3000 }, (s) => {
      readyFrom(400)(s);
      s.isWaitingForInput = () => true;
    });
    await advance(499);
    assert.equal(result(), undefined, 'what it drew may still be on its way');
    await advance(1);
    assert.deepEqual(result(), { settled: true, reason: 'quiet', elapsedMs: 500 });
  });

  it('exits while not ready: exited at once', async () => {
    const { source, result, advance } = observe({ readyTimeoutMs: 3000 }, readyFrom(undefined));
    await advance(100);
    source.final = true;
    source.emit();
    await advance(0);
    assert.deepEqual(result(), { settled: true, reason: 'exited', elapsedMs: 100 });
  });

  it('does not wait for readiness a source cannot tell, or a program already ready', async () => {
    for (const prepare of [undefined, readyFrom(0)]) {
      const { result, advance } = observe({ readyTimeoutMs: 3000 }, prepare);
      await advance(100);
      assert.deepEqual(result(), { settled: true, reason: 'quiet', elapsedMs: 100 });
    }
  });
});
