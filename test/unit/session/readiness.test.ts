/**
 * Readiness on a fake session and clock: a shell with command marks at its prompt, a program
 * waiting for input, text then quiet, text that keeps coming, an exit; never a blank screen;
 * the latch, the start-up window and waiting for it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  notReadyError,
  READY_STREAMING_BYTES,
  READY_STREAMING_MS,
  READY_TIMEOUT_MS,
  Readiness,
  type ReadinessSource,
} from '../../../src/session/readiness.js';
import { FakeClock } from '../../helpers/fakes.js';

function world(options: Partial<ReadinessSource> = {}) {
  const clock = new FakeClock();
  const listeners = new Set<() => void>();
  const source = {
    status: 'running' as 'running' | 'exited',
    isClosed: false,
    hasCommandMarks: false,
    promptMark: false,
    detectsInputWait: true,
    waiting: false,
    leaderWaiting: false,
    text: false,
    lastParsedAt: 0,
    pendingBytes: 0,
    outputBytes: 0,
    cpuMs: 0 as number | undefined,
    foregroundCpuMs() {
      return this.cpuMs;
    },
    hasPromptMark() {
      return this.promptMark;
    },
    isWaitingForInput() {
      return this.waiting;
    },
    leaderWaitsForInput() {
      return this.leaderWaiting;
    },
    hasText() {
      return this.text;
    },
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    ...options,
  };
  const readiness = new Readiness(source, { startedAt: 0, quietMs: 250, clock });
  return {
    source,
    readiness,
    clock,
    listeners,
    /** Moves the clock to `ms`, firing the timers due on the way. */
    at: (ms: number) => clock.advance(ms - clock.now()),
    emit: () => {
      for (const l of listeners) l();
    },
  };
}

describe('Readiness', () => {
  it('a blank screen is not ready, however quiet', async () => {
    const w = world();
    await w.at(5000);
    assert.equal(w.readiness.isReady(), false);
  });

  it('a program waiting for input is ready, and stays ready (latched)', async () => {
    const w = world();
    w.source.waiting = true;
    await w.at(300);
    assert.equal(w.readiness.isReady(), true);
    w.source.waiting = false;
    assert.equal(w.readiness.isReady(), true);
    assert.equal(w.readiness.readyAt, 300);
  });

  it('text, then quiet for the quiet interval with next to no CPU', async () => {
    const w = world();
    w.source.text = true;
    w.source.lastParsedAt = 1000;
    await w.at(1100);
    assert.equal(w.readiness.isReady(), false);
    await w.at(1250);
    w.source.cpuMs = 10;
    assert.equal(w.readiness.isReady(), true, 'CPU counted from the first look after the output');
  });

  it('a banner, then quiet while it loads using the CPU, is not ready', async () => {
    const w = world();
    w.source.text = true;
    w.source.lastParsedAt = 1000;
    await w.at(1300);
    assert.equal(w.readiness.isReady(), false);
    await w.at(1600);
    w.source.cpuMs = 250;
    assert.equal(w.readiness.isReady(), false);
    w.source.waiting = true;
    assert.equal(w.readiness.isReady(), true, 'until it waits for input');
  });

  it('without a CPU reading, text then quiet is enough', async () => {
    const w = world();
    w.source.cpuMs = undefined;
    w.source.text = true;
    await w.at(300);
    assert.equal(w.readiness.isReady(), true);
  });

  it('text that keeps coming is ready once it has come for a while; a spinner is not', async () => {
    const w = world();
    w.source.text = true;
    w.source.outputBytes = 100;
    await w.at(100);
    w.source.lastParsedAt = 100;
    assert.equal(w.readiness.isReady(), false);
    await w.at(100 + READY_STREAMING_MS);
    w.source.lastParsedAt = w.source.outputBytes = 100 + READY_STREAMING_MS;
    w.source.outputBytes = 300;
    assert.equal(w.readiness.isReady(), false, 'a spinner: 200 bytes in a second');
    w.source.outputBytes = 100 + READY_STREAMING_BYTES;
    assert.equal(w.readiness.isReady(), true);
  });

  it('input may go to a program other than a shell once it has drawn text', async () => {
    const w = world();
    assert.equal(w.readiness.mayTakeInput(), false);
    w.source.text = true;
    w.source.lastParsedAt = 10;
    await w.at(20);
    w.readiness.isReady();
    assert.equal(w.readiness.mayTakeInput(), true);
    const shell = world({ hasCommandMarks: true });
    shell.source.text = true;
    shell.readiness.isReady();
    assert.equal(shell.readiness.mayTakeInput(), false, 'a shell waits for its prompt');
  });

  it('output still waiting to be parsed is not quiet', async () => {
    const w = world();
    w.source.text = true;
    w.source.pendingBytes = 10;
    await w.at(600);
    assert.equal(w.readiness.isReady(), false);
  });

  it('a shell with command marks waits for its prompt: its startup output is not enough', async () => {
    const w = world({ hasCommandMarks: true });
    w.source.text = true;
    w.source.promptMark = true;
    await w.at(5000);
    assert.equal(w.readiness.isReady(), false, 'prompt mark, but not yet reading');
    w.source.waiting = true;
    assert.equal(w.readiness.isReady(), true);
  });

  it('a shell at its prompt is ready though a background job keeps its group busy', async () => {
    const w = world({ hasCommandMarks: true });
    w.source.leaderWaiting = true;
    await w.at(200);
    assert.equal(w.readiness.isReady(), false, 'reading, but no prompt yet (a startup file)');
    w.source.promptMark = true;
    assert.equal(w.readiness.isReady(), true);
  });

  it('without the probe, a shell is ready at its prompt mark and quiet', async () => {
    const w = world({ hasCommandMarks: true, detectsInputWait: false });
    w.source.lastParsedAt = 900;
    await w.at(1000);
    assert.equal(w.readiness.isReady(), false);
    w.source.promptMark = true;
    await w.at(1150);
    assert.equal(w.readiness.isReady(), true);
  });

  it('an exited program is ready', () => {
    const w = world();
    w.source.status = 'exited';
    assert.equal(w.readiness.isReady(), true);
  });

  it('the start-up window: input may go once it is over, ready or not', async () => {
    const w = world();
    await w.at(READY_TIMEOUT_MS - 1);
    assert.equal(w.readiness.mayTakeInput(), false);
    assert.equal(w.readiness.startupLeftMs(), 1);
    await w.at(READY_TIMEOUT_MS);
    assert.equal(w.readiness.mayTakeInput(), true);
    assert.equal(w.readiness.isReady(), false);
  });

  it('whenReady resolves on the event that makes it ready, or false when the window ends', async () => {
    const w = world();
    const pending = w.readiness.whenReady();
    w.source.waiting = true;
    w.emit();
    assert.equal(await pending, true);
    const late = world();
    await late.at(READY_TIMEOUT_MS);
    assert.equal(await late.readiness.whenReady(), false);
  });

  it('whenReady rejects when cancelled', async () => {
    const w = world();
    const controller = new AbortController();
    const pending = w.readiness.whenReady(controller.signal);
    controller.abort();
    await assert.rejects(pending, { code: 'CANCELLED' });
  });

  it('whenReady finds readiness no event announced at its next look, every 20 ms', async () => {
    const w = world();
    let ready: boolean | undefined;
    void w.readiness.whenReady().then((r) => (ready = r));
    await w.at(30);
    w.source.waiting = true; // read from /proc: no output says so
    await w.at(39);
    assert.equal(ready, undefined);
    await w.at(40);
    assert.equal(ready, true);
    assert.equal(w.readiness.readyAt, 40);
    assert.equal(w.clock.pendingTimers, 0, 'stops looking');
    assert.equal(w.listeners.size, 0, 'unsubscribed');
  });

  it('whenReady resolves false when the start-up window ends while it waits', async () => {
    const w = world();
    let ready: boolean | undefined;
    void w.readiness.whenReady().then((r) => (ready = r));
    await w.at(READY_TIMEOUT_MS - 1);
    assert.equal(ready, undefined);
    await w.at(READY_TIMEOUT_MS);
    assert.equal(ready, false);
    assert.equal(w.clock.pendingTimers, 0);
    assert.equal(w.listeners.size, 0);
  });

  it('whenReady answers at once for a ready program, and a signal aborted before it began', async () => {
    const w = world();
    w.source.status = 'exited';
    assert.equal(await w.readiness.whenReady(), true);
    assert.equal(w.clock.pendingTimers, 0);
    const aborted = world();
    await assert.rejects(aborted.readiness.whenReady(AbortSignal.abort()), { code: 'CANCELLED' });
    assert.equal(aborted.clock.pendingTimers, 0);
    assert.equal(aborted.listeners.size, 0);
  });

  it('a session closed before its program was ready counts as ready', () => {
    const w = world();
    w.source.isClosed = true;
    assert.equal(w.readiness.isReady(), true);
  });

  it('records when it became ready: the look that saw it', async () => {
    const w = world();
    await w.at(700);
    assert.equal(w.readiness.isReady(), false);
    w.source.waiting = true;
    await w.at(850);
    assert.equal(w.readiness.readyAt, undefined, 'not looked at yet');
    assert.equal(w.readiness.isReady(), true);
    assert.equal(w.readiness.readyAt, 850);
  });

  it('the quiet interval, to the millisecond', async () => {
    const w = world();
    w.source.cpuMs = undefined;
    w.source.text = true;
    w.source.lastParsedAt = 1000;
    await w.at(1249);
    assert.equal(w.readiness.isReady(), false);
    await w.at(1250);
    assert.equal(w.readiness.isReady(), true);
  });

  it('tolerates CPU up to 20 ms plus a tenth of the quiet, not more', async () => {
    for (const [cpuMs, ready] of [
      [20 + 30, true],
      [20 + 30 + 1, false],
    ] as const) {
      const w = world();
      w.source.text = true;
      w.source.lastParsedAt = 1000;
      await w.at(1300);
      assert.equal(w.readiness.isReady(), false, 'the first look after the output marks the CPU');
      await w.at(1600);
      w.source.cpuMs = cpuMs;
      assert.equal(w.readiness.isReady(), ready, `${cpuMs} ms of CPU in 300 ms`);
    }
  });

  it('text that keeps coming is not ready before it has come for READY_STREAMING_MS', async () => {
    const w = world();
    w.source.text = true;
    await w.at(100);
    w.source.lastParsedAt = 100;
    assert.equal(w.readiness.isReady(), false);
    await w.at(100 + READY_STREAMING_MS - 1);
    w.source.lastParsedAt = w.clock.now();
    w.source.outputBytes = 10 * READY_STREAMING_BYTES;
    assert.equal(w.readiness.isReady(), false, 'bytes enough, but not for long enough');
    await w.at(100 + READY_STREAMING_MS);
    w.source.lastParsedAt = w.clock.now();
    assert.equal(w.readiness.isReady(), true);
  });

  it('without the probe, a program that is not a shell is not ready from waiting alone', async () => {
    const w = world({ detectsInputWait: false });
    w.source.waiting = true;
    await w.at(5000);
    assert.equal(w.readiness.isReady(), false);
  });

  it('a shell takes input once its start-up window is over, prompt or not', async () => {
    const w = world({ hasCommandMarks: true });
    w.source.text = true;
    await w.at(READY_TIMEOUT_MS - 1);
    assert.equal(w.readiness.mayTakeInput(), false);
    await w.at(READY_TIMEOUT_MS);
    assert.equal(w.readiness.mayTakeInput(), true);
  });

  it('NOT_READY names the foreground process and says nothing was sent', () => {
    const err = notReadyError('t3', 9500, { pid: 42, command: 'pyenv-rehash' });
    assert.equal(err.code, 'NOT_READY');
    assert.match(err.message, /pyenv-rehash \(pid 42\)/);
    assert.match(err.message, /nothing was sent/);
    assert.match(err.message, /in the 10 s since it started/);
    assert.match(err.message, /\(held for 9\.5 s\)/);
    assert.deepEqual(err.details, {
      sessionId: 't3',
      waitedMs: 9500,
      foreground: { pid: 42, command: 'pyenv-rehash' },
    });
  });
});
