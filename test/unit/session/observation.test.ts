// Observation timing: a call's settleMs/settleTimeoutMs or the defaults, the check that a
// strict deadline can contain its quiet interval (for a call and for a wait action), and what a
// session's settlement asks of screen/settle.ts (the start-up window, the probe), on a fake clock.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { actionAt } from '../../../src/input/actions.js';
import type { SettleResult } from '../../../src/screen/settle.js';
import {
  checkSettleTiming,
  type ObserveOptions,
  observeOptions,
  settleSession,
} from '../../../src/session/observation.js';
import type { Session } from '../../../src/session/session.js';
import { TerminalError } from '../../../src/shared/errors.js';
import { FakeClock } from '../../helpers/fakes.js';

const DEFAULTS = { quietMs: 100, settleTimeoutMs: 1000, inputGraceMs: 40 };

describe('checkSettleTiming', () => {
  const ok: readonly (readonly [number | undefined, number | undefined])[] = [
    [undefined, undefined],
    [50, undefined],
    [undefined, 100],
    [200, 200],
    [10, 50],
  ];
  for (const [settleMs, settleTimeoutMs] of ok) {
    it(`settleMs ${settleMs}, settleTimeoutMs ${settleTimeoutMs} → accepted`, () =>
      assert.doesNotThrow(() => checkSettleTiming({ settleMs, settleTimeoutMs }, DEFAULTS)));
  }
  it('a timeout shorter than settleMs → INVALID_ARGUMENT with both values', () =>
    assert.throws(() => checkSettleTiming({ settleMs: 300, settleTimeoutMs: 200 }, DEFAULTS), {
      code: 'INVALID_ARGUMENT',
      message: /^settleTimeoutMs \(200\) must be at least settleMs \(300\)/,
      details: { settleMs: 300, settleTimeoutMs: 200 },
    }));
  it('a timeout shorter than the default quiet interval suggests a smaller settleMs', () =>
    assert.throws(() => checkSettleTiming({ settleTimeoutMs: 99 }, DEFAULTS), {
      code: 'INVALID_ARGUMENT',
      message:
        /^settleTimeoutMs \(99\) is shorter than the default quiet interval \(100 ms\); pass a smaller settleMs/,
    }));
  it('a wait action is named by its label and carries its index (for failedActionIndex)', () =>
    assert.throws(
      () => checkSettleTiming({ settleMs: 300, settleTimeoutMs: 200 }, DEFAULTS, actionAt(2)),
      {
        code: 'INVALID_ARGUMENT',
        message: /^actions\[2\]: settleTimeoutMs/,
        details: { actionIndex: 2, settleMs: 300, settleTimeoutMs: 200 },
      },
    ));
  it('a test script names the step', () =>
    assert.throws(
      () => checkSettleTiming({ settleTimeoutMs: 50 }, DEFAULTS, actionAt(7, 'steps')),
      {
        message: /^steps\[7\]: .*\(100 ms\)/,
      },
    ));
});

describe('observeOptions', () => {
  it('takes the defaults; an input wait may end the default quiet early', () =>
    assert.deepEqual(observeOptions(DEFAULTS, {}), {
      quietMs: 100,
      timeoutMs: 1000,
      inputGraceMs: 40,
      awaitReady: true,
      strictDeadline: false,
      signal: undefined,
    }));
  it('honours an explicit settleMs in full, and the deadline is at least twice it', () =>
    assert.deepEqual(observeOptions(DEFAULTS, { settleMs: 800 }), {
      quietMs: 800,
      timeoutMs: 1600,
      inputGraceMs: undefined,
      awaitReady: true,
      strictDeadline: false,
      signal: undefined,
    }));
  it('an explicit settleTimeoutMs wins, from the start of the call', () => {
    const options = observeOptions(DEFAULTS, { settleMs: 800, settleTimeoutMs: 900 });
    assert.equal(options.timeoutMs, 900);
    assert.equal(options.strictDeadline, true);
  });
  it('settleMs 0 reads at once: it does not wait for a program to be ready', () =>
    assert.equal(observeOptions(DEFAULTS, { settleMs: 0 }).awaitReady, false));
});

/**
 * A session whose program never draws and is not ready; `startupLeftMs` of its start-up window
 * left; it waits for input where the probe can tell.
 */
function quietSession(facts: { startupLeftMs: number; probe?: boolean }) {
  const state = { closed: false, exited: false, text: false };
  const listeners = new Set<() => void>();
  const session = {
    fingerprint: () => 'blank',
    parseCount: 0,
    lastParsedAt: 0,
    pendingBytes: 0,
    isSynchronizedUpdate: () => false,
    isFinal: () => state.closed || state.exited,
    isReady: () => false,
    isWaitingForInput: () => true,
    confirmInputWait: async () => true,
    subscribe: (listener: () => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    detectsInputWait: facts.probe ?? false,
    hasText: () => state.text,
    readiness: { startupLeftMs: () => facts.startupLeftMs },
    assertOpen: () => {
      if (state.closed) throw new TerminalError('SESSION_CLOSED', 'closed');
    },
  };
  /** The program exits now. */
  const exit = () => {
    state.exited = true;
    for (const listener of listeners) listener();
  };
  return { session: session as unknown as Session, state, exit };
}

/** Settles `session` on `clock`, recording the result. */
function settle(session: Session, options: Partial<ObserveOptions>, clock: FakeClock) {
  let result: SettleResult | undefined;
  let error: unknown;
  settleSession(session, { quietMs: 100, timeoutMs: 1000, ...options }, clock).then(
    (r) => {
      result = r;
    },
    (e: unknown) => {
      error = e;
    },
  );
  return { result: () => result, error: () => error };
}

describe('settleSession', () => {
  it('within the start-up window, waits for readiness to the end of the window: starting', async () => {
    const clock = new FakeClock();
    const { session } = quietSession({ startupLeftMs: 2500 });
    const s = settle(session, { awaitReady: true }, clock);
    await clock.advance(2499);
    assert.equal(s.result(), undefined, 'a blank screen is not settled');
    await clock.advance(1);
    assert.deepEqual(s.result(), { settled: false, reason: 'starting', elapsedMs: 2500 });
  });

  it('calls it a timeout, not starting, when the program has printed something', async () => {
    const clock = new FakeClock();
    const { session, state } = quietSession({ startupLeftMs: 600 });
    state.text = true;
    const s = settle(session, { awaitReady: true }, clock);
    await clock.advance(600);
    assert.deepEqual(s.result(), { settled: false, reason: 'timeout', elapsedMs: 600 });
  });

  it('does not wait for readiness once the window is over, or with settleMs 0 (awaitReady false)', async () => {
    for (const [startupLeftMs, awaitReady] of [
      [0, true],
      [5000, false],
    ] as const) {
      const clock = new FakeClock();
      const { session } = quietSession({ startupLeftMs });
      const s = settle(session, { awaitReady }, clock);
      await clock.advance(100);
      assert.deepEqual(s.result(), { settled: true, reason: 'quiet', elapsedMs: 100 });
    }
  });

  it('uses the input grace only where the probe can tell', async () => {
    const clock = new FakeClock();
    const probed = settle(
      quietSession({ startupLeftMs: 0, probe: true }).session,
      { inputGraceMs: 20 },
      clock,
    );
    const blind = settle(
      quietSession({ startupLeftMs: 0, probe: false }).session,
      { inputGraceMs: 20 },
      clock,
    );
    await clock.advance(20);
    assert.deepEqual(probed.result(), { settled: true, reason: 'input', elapsedMs: 20 });
    assert.equal(blind.result(), undefined);
    await clock.advance(80);
    assert.deepEqual(blind.result(), { settled: true, reason: 'quiet', elapsedMs: 100 });
  });

  it('reports an exit while it waits for readiness as exited, in whole milliseconds', async () => {
    const clock = new FakeClock();
    const { session, exit } = quietSession({ startupLeftMs: 5000 });
    const s = settle(session, { awaitReady: true }, clock);
    await clock.advance(70.6);
    exit();
    await clock.advance(0);
    assert.deepEqual(s.result(), { settled: true, reason: 'exited', elapsedMs: 71 });
  });

  it('fails with SESSION_CLOSED when the session closes while it settles, or was closed', async () => {
    const clock = new FakeClock();
    const { session, state } = quietSession({ startupLeftMs: 0 });
    const s = settle(session, {}, clock);
    await clock.advance(50);
    state.closed = true;
    await clock.advance(50);
    assert.equal((s.error() as TerminalError | undefined)?.code, 'SESSION_CLOSED');
    const again = settle(session, {}, clock);
    await clock.advance(0);
    assert.equal((again.error() as TerminalError | undefined)?.code, 'SESSION_CLOSED');
  });
});
