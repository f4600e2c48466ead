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
    await whenReadingAgain(target(40));
    const took = performance.now() - began;
    assert.ok(took >= 35 && took < INTERRUPT_SETTLE_MS, `${took} ms`);
  });

  it('does not go on while output still comes, though the program reads', async () => {
    const t = { ...target(0), lastParsedAt: performance.now() + 60 };
    const began = performance.now();
    await whenReadingAgain(t);
    assert.ok(performance.now() - began >= 60);
  });

  it('goes on at the bound when the program never reads again', async () => {
    const began = performance.now();
    await whenReadingAgain(target(undefined));
    const took = performance.now() - began;
    assert.ok(took >= INTERRUPT_SETTLE_MS - 5 && took < INTERRUPT_SETTLE_MS + 200, `${took} ms`);
  });

  it('pauses briefly where the probe cannot tell', async () => {
    const began = performance.now();
    await whenReadingAgain(target(undefined, false));
    const took = performance.now() - began;
    assert.ok(took >= INTERRUPT_PAUSE_MS - 5 && took < INTERRUPT_SETTLE_MS, `${took} ms`);
  });

  it('ends at once when the request is cancelled', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(whenReadingAgain(target(undefined), controller.signal), {
      code: 'CANCELLED',
    });
  });
});
