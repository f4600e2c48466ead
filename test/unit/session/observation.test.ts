// Observation timing: a call's settleMs/settleTimeoutMs or the defaults, and the check that a
// strict deadline can contain its quiet interval (for a call and for a wait action).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { actionAt } from '../../../src/input/actions.js';
import { checkSettleTiming, observeOptions } from '../../../src/session/observation.js';

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
