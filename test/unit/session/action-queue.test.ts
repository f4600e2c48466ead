import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { ActionQueue } from '../../../src/session/action-queue.js';
import { TerminalError } from '../../../src/shared/errors.js';

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets queued promise callbacks (the queue's pump) run. */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

const isCode = (code: string) => (err: unknown) =>
  err instanceof TerminalError && err.code === code;

const CLOSED = new TerminalError('SESSION_CLOSED', 'session t1 was closed');

describe('ActionQueue', () => {
  it('runs jobs one at a time, in arrival order', async () => {
    const queue = new ActionQueue();
    const log: string[] = [];
    const gates = [deferred(), deferred(), deferred()];
    const results = gates.map((gate, i) =>
      queue.run(async () => {
        log.push(`start ${i}`);
        await gate.promise;
        log.push(`end ${i}`);
        return i * 10;
      }),
    );
    assert.equal(queue.size, 3);
    assert.equal(queue.isRunning, true);
    gates[2]?.resolve();
    gates[1]?.resolve();
    await tick();
    assert.deepEqual(log, ['start 0']);
    gates[0]?.resolve();
    assert.deepEqual(await Promise.all(results), [0, 10, 20]);
    assert.deepEqual(log, ['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
    assert.equal(queue.size, 0);
    assert.equal(queue.isRunning, false);
  });

  it('passes a failure to its caller and goes on with the next job', async () => {
    const queue = new ActionQueue();
    const failing = queue.run(async () => {
      throw new Error('boom');
    });
    const throwing = queue.run(() => {
      throw new Error('sync boom');
    });
    const next = queue.run(async () => 'next');
    await assert.rejects(failing, /boom/);
    await assert.rejects(throwing, /sync boom/);
    assert.equal(await next, 'next');
  });

  it('rejects at once when the signal is already aborted, without running', async () => {
    const queue = new ActionQueue();
    let ran = false;
    const run = queue.run(async () => {
      ran = true;
    }, AbortSignal.abort());
    await assert.rejects(run, isCode('CANCELLED'));
    assert.equal(ran, false);
    assert.equal(queue.size, 0);
  });

  it('never runs a waiting job whose request was cancelled', async () => {
    const queue = new ActionQueue();
    const gate = deferred();
    const first = queue.run(() => gate.promise);
    const controller = new AbortController();
    let ran = false;
    const second = queue.run(async () => {
      ran = true;
    }, controller.signal);
    const third = queue.run(async () => 'third');
    controller.abort();
    await assert.rejects(second, isCode('CANCELLED'));
    assert.equal(queue.size, 2);
    gate.resolve();
    await first;
    assert.equal(await third, 'third');
    assert.equal(ran, false);
  });

  it('aborts the running job signal when its request is cancelled', async () => {
    const queue = new ActionQueue();
    const controller = new AbortController();
    const seen: unknown[] = [];
    const running = queue.run(
      (signal) =>
        new Promise((_, reject) => {
          signal.addEventListener('abort', () => {
            seen.push(signal.reason);
            reject(signal.reason);
          });
        }),
      controller.signal,
    );
    await tick();
    controller.abort();
    await assert.rejects(running, isCode('CANCELLED'));
    assert.equal(seen.length, 1);
    assert.equal(await queue.run(async () => 'after'), 'after');
  });

  it('passes a TerminalError abort reason through', async () => {
    const queue = new ActionQueue();
    const gate = deferred();
    void queue.run(() => gate.promise);
    const reason = new TerminalError('SESSION_EXITED', 'exited');
    const controller = new AbortController();
    const waiting = queue.run(async () => undefined, controller.signal);
    controller.abort(reason);
    await assert.rejects(waiting, (err) => err === reason);
    gate.resolve();
  });

  it('on close aborts the running job, rejects waiting ones and later runs', async () => {
    const queue = new ActionQueue();
    let runningReason: unknown;
    const running = queue.run(
      (signal) =>
        new Promise((_, reject) => {
          signal.addEventListener('abort', () => {
            runningReason = signal.reason;
            reject(signal.reason);
          });
        }),
    );
    let ran = false;
    const waiting = queue.run(async () => {
      ran = true;
    });
    queue.close(CLOSED);
    await assert.rejects(waiting, (err) => err === CLOSED);
    await assert.rejects(running, (err) => err === CLOSED);
    assert.equal(runningReason, CLOSED);
    await assert.rejects(
      queue.run(async () => undefined),
      (err) => err === CLOSED,
    );
    assert.equal(ran, false);
  });

  it('lets a running job that ignores the signal finish after close', async () => {
    const queue = new ActionQueue();
    const gate = deferred<string>();
    const running = queue.run(() => gate.promise);
    queue.close(CLOSED);
    gate.resolve('done anyway');
    assert.equal(await running, 'done anyway');
    await tick();
    assert.equal(queue.size, 0);
  });

  it('is idempotent on close: the first reason stays', async () => {
    const queue = new ActionQueue();
    queue.close(CLOSED);
    queue.close(new TerminalError('INTERNAL', 'other'));
    await assert.rejects(
      queue.run(async () => undefined),
      (err) => err === CLOSED,
    );
  });

  it('removes its abort listeners once a job settles or is cancelled', async () => {
    const queue = new ActionQueue();
    const gate = deferred();
    const done = new AbortController();
    const cancelled = new AbortController();
    const first = queue.run(() => gate.promise, done.signal);
    const second = queue.run(async () => undefined, cancelled.signal);
    assert.equal(getEventListeners(done.signal, 'abort').length, 1);
    cancelled.abort();
    await assert.rejects(second, isCode('CANCELLED'));
    gate.resolve();
    await first;
    await tick();
    assert.equal(getEventListeners(done.signal, 'abort').length, 0);
    assert.equal(getEventListeners(cancelled.signal, 'abort').length, 0);
  });
});
