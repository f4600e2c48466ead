import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import {
  STARTUP_CLOSE_WAIT_MS,
  type StartupSource,
  whenStartupOver,
} from '../../../src/session/startup-close.js';

/** A clock that moves only when the wait sleeps. */
function fakeClock() {
  let t = 0;
  return {
    now: () => t,
    sleep: async (ms: number) => {
      t += ms;
      // A wait that never ends fails here rather than spinning on.
      if (t > 60_000) throw new Error('still waiting after 60 s');
    },
  };
}

/** A shell that is ready, or asks for input, from `readyAt` ms on (never when undefined). */
function shell(
  clock: { now(): number },
  over: Partial<Record<'readyAt' | 'asksAt' | 'exitsAt', number>> = {},
  leftMs = 10_000,
  command: string | null = null,
): StartupSource {
  const reached = (at?: number) => at !== undefined && clock.now() >= at;
  return {
    command,
    get status() {
      return reached(over.exitsAt) ? 'exited' : 'running';
    },
    isReady: () => reached(over.readyAt),
    isWaitingForInput: () => reached(over.asksAt),
    startupLeftMs: () => leftMs,
  };
}

const never = new AbortController().signal;

describe('a close during start-up', () => {
  it('waits until the shell is at its prompt, looking every 20 ms', async () => {
    const clock = fakeClock();
    await whenStartupOver(shell(clock, { readyAt: 700 }), never, clock);
    assert.equal(clock.now(), 700);
    const between = fakeClock();
    await whenStartupOver(shell(between, { readyAt: 705 }), never, between);
    assert.equal(between.now(), 720, 'seen at the next look');
  });

  it('goes on when the start-up asks for input, or the shell exits', async () => {
    const asks = fakeClock();
    await whenStartupOver(shell(asks, { asksAt: 300 }), never, asks);
    assert.equal(asks.now(), 300);
    const exits = fakeClock();
    await whenStartupOver(shell(exits, { exitsAt: 120 }), never, exits);
    assert.equal(exits.now(), 120);
  });

  it(`waits at most ${STARTUP_CLOSE_WAIT_MS} ms, and never past the start-up window`, async () => {
    const stuck = fakeClock();
    await whenStartupOver(shell(stuck), never, stuck);
    assert.equal(stuck.now(), STARTUP_CLOSE_WAIT_MS);
    const late = fakeClock();
    await whenStartupOver(shell(late, {}, 400), never, late);
    assert.equal(late.now(), 400);
    const over = fakeClock();
    await whenStartupOver(shell(over, {}, 0), never, over);
    assert.equal(over.now(), 0, 'not at all once the window is over');
  });

  it('does not wait for a command, a ready shell, or once aborted', async () => {
    const clock = fakeClock();
    await whenStartupOver(shell(clock, {}, 10_000, 'make'), never, clock);
    await whenStartupOver(shell(clock, { readyAt: 0 }), never, clock);
    const aborted = new AbortController();
    aborted.abort();
    await whenStartupOver(shell(clock), aborted.signal, clock);
    assert.equal(clock.now(), 0);
  });

  it('stops waiting the moment it is aborted (a shutdown), mid-pause', async () => {
    // A pause that ends only when the test says: the abort alone must end the wait.
    let now = 0;
    const pauses: number[] = [];
    const clock = {
      now: () => now,
      sleep: (ms: number) => {
        pauses.push(ms);
        if (pauses.length > 100) throw new Error('still waiting after the abort');
        return new Promise<void>(() => {});
      },
    };
    const controller = new AbortController();
    let over = false;
    const waiting = whenStartupOver(shell(clock), controller.signal, clock).then(() => {
      over = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(pauses, [20]);
    assert.equal(over, false, 'waiting while the shell starts');
    now = 50;
    controller.abort();
    await waiting;
    assert.equal(over, true);
    assert.deepEqual(pauses, [20], 'no pause after the abort');
  });

  it('leaves no listener on the signal, which outlives the close (the shutdown signal)', async () => {
    const shutdown = new AbortController().signal;
    const clock = fakeClock();
    await whenStartupOver(shell(clock, { readyAt: 100 }), shutdown, clock);
    await whenStartupOver(shell(clock), shutdown, clock);
    await whenStartupOver(shell(clock, { readyAt: 0 }), shutdown, clock);
    assert.equal(getEventListeners(shutdown, 'abort').length, 0);
  });
});
