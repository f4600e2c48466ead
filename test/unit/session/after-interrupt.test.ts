import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  INTERRUPT_PAUSE_MS,
  INTERRUPT_SETTLE_MS,
  type InterruptClock,
  type InterruptTarget,
  SHELL_HOLD_MS,
  sendsSignalCharacter,
  whenReadingAgain,
  whenShellCanTakeInterrupt,
} from '../../../src/session/after-interrupt.js';
import { cancelledError } from '../../../src/shared/errors.js';

/** A clock that moves only when the wait sleeps; a cancelled sleep rejects as the real one does. */
function fakeClock(): InterruptClock & { now(): number } {
  let now = 0;
  return {
    now: () => now,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw cancelledError(signal);
      now += ms;
    },
  };
}

interface Script {
  /** From when on (fake ms) the program reads the terminal again; never when undefined. */
  readsFrom?: number;
  /** From when on output has been printed since the signal (fake ms). */
  printsFrom?: number;
  /** When output was last parsed (fake ms). */
  lastParsedAt?: number;
  /** Until when the shell is between commands (fake ms). */
  betweenUntil?: number;
  /** When the program exits (fake ms). */
  exitsAt?: number;
  detectsInputWait?: boolean;
}

function target(clock: { now(): number }, script: Script): InterruptTarget {
  const reached = (at?: number) => at !== undefined && clock.now() >= at;
  return {
    get status() {
      return reached(script.exitsAt) ? 'exited' : 'running';
    },
    detectsInputWait: script.detectsInputWait ?? true,
    lastParsedAt: script.lastParsedAt ?? -1000,
    pendingBytes: 0,
    get outputBytes() {
      return reached(script.printsFrom) ? 20 : 10;
    },
    isWaitingForInput: () => reached(script.readsFrom),
    shellBetweenCommands: () => script.betweenUntil !== undefined && !reached(script.betweenUntil),
  };
}

describe('after an interrupt', () => {
  it("knows the terminal's signal characters, and only those", () => {
    assert.equal(sendsSignalCharacter(Buffer.from([0x03])), true);
    assert.equal(sendsSignalCharacter(Buffer.from('a\x1cb')), true);
    assert.equal(sendsSignalCharacter(Buffer.from([0x1a])), true);
    assert.equal(sendsSignalCharacter(Buffer.from('echo ok\r\x1b[A\x04\x7f')), false);
    assert.equal(sendsSignalCharacter(new Uint8Array()), false);
  });

  it('goes on once the program has printed and reads again', async () => {
    const clock = fakeClock();
    await whenReadingAgain(target(clock, { printsFrom: 10, readsFrom: 40 }), 10, undefined, clock);
    assert.equal(clock.now(), 40);
  });

  it('does not go on while output still comes, though the program reads', async () => {
    const clock = fakeClock();
    // Output parsed at 60: quiet for 15 ms from then.
    const t = target(clock, { printsFrom: 0, readsFrom: 0, lastParsedAt: 60 });
    await whenReadingAgain(t, 10, undefined, clock);
    assert.equal(clock.now(), 75);
  });

  it('does not take a read from before the signal arrived for one after it', async () => {
    const clock = fakeClock();
    // Reading, but nothing printed since the signal character: it has not reached the program.
    await whenReadingAgain(target(clock, { readsFrom: 0 }), 10, undefined, clock);
    assert.equal(clock.now(), INTERRUPT_SETTLE_MS);
  });

  it('goes on at the bound when the program never reads again', async () => {
    const clock = fakeClock();
    await whenReadingAgain(target(clock, { printsFrom: 0 }), 10, undefined, clock);
    assert.equal(clock.now(), INTERRUPT_SETTLE_MS);
  });

  it('goes on when the program exits', async () => {
    const clock = fakeClock();
    await whenReadingAgain(target(clock, { exitsAt: 30 }), 10, undefined, clock);
    assert.equal(clock.now(), 30);
  });

  it('pauses briefly where the probe cannot tell', async () => {
    const clock = fakeClock();
    const t = target(clock, { detectsInputWait: false, printsFrom: 0, readsFrom: 0 });
    await whenReadingAgain(t, 10, undefined, clock);
    assert.equal(clock.now(), INTERRUPT_PAUSE_MS);
  });

  it('ends at once when the request is cancelled', async () => {
    const clock = fakeClock();
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(whenReadingAgain(target(clock, {}), 10, controller.signal, clock), {
      code: 'CANCELLED',
    });
  });
});

describe('before an interrupt', () => {
  it('sends at once when the shell reads the terminal or a command holds it', async () => {
    const clock = fakeClock();
    await whenShellCanTakeInterrupt(target(clock, {}), undefined, clock);
    assert.equal(clock.now(), 0);
  });

  it('holds the signal character while the shell is between commands', async () => {
    const clock = fakeClock();
    // PROMPT_COMMAND runs until 120 ms; then the shell reads (or its command takes the terminal).
    await whenShellCanTakeInterrupt(target(clock, { betweenUntil: 120 }), undefined, clock);
    assert.equal(clock.now(), 120);
  });

  it('sends at the bound to a shell busy in a loop of its own', async () => {
    const clock = fakeClock();
    const t = target(clock, { betweenUntil: Number.POSITIVE_INFINITY });
    await whenShellCanTakeInterrupt(t, undefined, clock);
    assert.equal(clock.now(), SHELL_HOLD_MS);
  });

  it('stops holding when the shell exits', async () => {
    const clock = fakeClock();
    const t = target(clock, { betweenUntil: Number.POSITIVE_INFINITY, exitsAt: 50 });
    await whenShellCanTakeInterrupt(t, undefined, clock);
    assert.equal(clock.now(), 50);
  });

  it('ends at once when the request is cancelled', async () => {
    const clock = fakeClock();
    const controller = new AbortController();
    controller.abort();
    const t = target(clock, { betweenUntil: Number.POSITIVE_INFINITY });
    await assert.rejects(whenShellCanTakeInterrupt(t, controller.signal, clock), {
      code: 'CANCELLED',
    });
  });
});
