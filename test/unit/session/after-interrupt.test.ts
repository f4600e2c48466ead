import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  INTERRUPT_PAUSE_MS,
  INTERRUPT_SETTLE_MS,
  sendsSignalCharacter,
  whenReadingAgain,
} from '../../../src/session/after-interrupt.js';

function target(waitingAfterMs: number | undefined, detectsInputWait = true) {
  const began = performance.now();
  return {
    status: 'running' as const,
    detectsInputWait,
    lastParsedAt: began - 1000,
    pendingBytes: 0,
    outputBytes: 10,
    isWaitingForInput: () =>
      waitingAfterMs !== undefined && performance.now() - began >= waitingAfterMs,
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

  it('goes on once the program reads again', async () => {
    const began = performance.now();
    await whenReadingAgain(target(40), 0);
    const took = performance.now() - began;
    assert.ok(took >= 35 && took < INTERRUPT_SETTLE_MS, `${took} ms`);
  });

  it('does not go on while output still comes, though the program reads', async () => {
    const t = { ...target(0), lastParsedAt: performance.now() + 60 };
    const began = performance.now();
    await whenReadingAgain(t, 0);
    assert.ok(performance.now() - began >= 60);
  });

  it('does not take a read from before the signal arrived for one after it', async () => {
    const began = performance.now();
    // Reading, but nothing printed since the signal character: it has not reached the program.
    await whenReadingAgain(target(0), 10);
    assert.ok(performance.now() - began >= INTERRUPT_SETTLE_MS - 5);
  });

  it('goes on at the bound when the program never reads again', async () => {
    const began = performance.now();
    await whenReadingAgain(target(undefined), 0);
    const took = performance.now() - began;
    assert.ok(took >= INTERRUPT_SETTLE_MS - 5 && took < INTERRUPT_SETTLE_MS + 200, `${took} ms`);
  });

  it('pauses briefly where the probe cannot tell', async () => {
    const began = performance.now();
    await whenReadingAgain(target(undefined, false), 0);
    const took = performance.now() - began;
    assert.ok(took >= INTERRUPT_PAUSE_MS - 5 && took < INTERRUPT_SETTLE_MS, `${took} ms`);
  });

  it('ends at once when the request is cancelled', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(whenReadingAgain(target(undefined), 0, controller.signal), {
      code: 'CANCELLED',
    });
  });
});
