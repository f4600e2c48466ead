import assert from 'node:assert/strict';
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
  it('waits until the shell is at its prompt', async () => {
    const clock = fakeClock();
    await whenStartupOver(shell(clock, { readyAt: 700 }), never, clock);
    assert.ok(clock.now() >= 700 && clock.now() < 760, `${clock.now()} ms`);
  });

  it('goes on when the start-up asks for input, or the shell exits', async () => {
    const asks = fakeClock();
    await whenStartupOver(shell(asks, { asksAt: 300 }), never, asks);
    assert.ok(asks.now() >= 300 && asks.now() < 360, `${asks.now()} ms`);
    const exits = fakeClock();
    await whenStartupOver(shell(exits, { exitsAt: 120 }), never, exits);
    assert.ok(exits.now() >= 120 && exits.now() < 180, `${exits.now()} ms`);
  });

  it(`waits at most ${STARTUP_CLOSE_WAIT_MS} ms, and never past the start-up window`, async () => {
    const stuck = fakeClock();
    await whenStartupOver(shell(stuck), never, stuck);
    assert.ok(stuck.now() >= STARTUP_CLOSE_WAIT_MS && stuck.now() < STARTUP_CLOSE_WAIT_MS + 60);
    const late = fakeClock();
    await whenStartupOver(shell(late, {}, 400), never, late);
    assert.ok(late.now() >= 400 && late.now() < 460, `${late.now()} ms`);
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

  it('stops waiting the moment it is aborted (a shutdown), on the real clock', async () => {
    const controller = new AbortController();
    const began = performance.now();
    setTimeout(() => controller.abort(), 50);
    await whenStartupOver(shell({ now: () => 0 }), controller.signal);
    const took = performance.now() - began;
    assert.ok(took >= 45 && took < 500, `${took} ms`);
  });
});
