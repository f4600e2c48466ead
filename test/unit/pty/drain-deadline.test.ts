/**
 * The exit drain's deadline (src/pty/drain-deadline.ts): ticks with and without output, bytes
 * read, and the cap.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DrainDeadline, type DrainEnd } from '../../../src/pty/drain-deadline.js';

const LIMITS = { quietTicks: 3, maxBytes: 100, maxTicks: 10 };

/** Ticks `deadline` until it ends, calling `beforeTick(k)` first; returns the end and the tick. */
function run(
  deadline: DrainDeadline,
  beforeTick: (k: number) => void = () => {},
): { end: DrainEnd; tick: number } {
  for (let k = 1; k <= 1000; k++) {
    beforeTick(k);
    const end = deadline.tick();
    if (end !== undefined) return { end, tick: k };
  }
  throw new Error('the deadline never ended');
}

describe('DrainDeadline', () => {
  it('ends quiet after quietTicks ticks in a row with nothing read', () => {
    assert.deepEqual(run(new DrainDeadline(LIMITS)), { end: 'quiet', tick: 3 });
  });

  it('restarts the quiet count at each tick that read something', () => {
    const deadline = new DrainDeadline(LIMITS);
    assert.deepEqual(
      run(deadline, (k) => k === 2 && deadline.output(10)),
      { end: 'quiet', tick: 5 },
    );
  });

  it('an empty read is not output', () => {
    const deadline = new DrainDeadline(LIMITS);
    assert.deepEqual(
      run(deadline, () => deadline.output(0)),
      { end: 'quiet', tick: 3 },
    );
  });

  it('ends at maxBytes read in all, checked at the next tick', () => {
    const deadline = new DrainDeadline(LIMITS);
    assert.deepEqual(
      run(deadline, () => deadline.output(30)),
      { end: 'bytes', tick: 4 },
    );
  });

  it('ends at maxTicks while output keeps trickling', () => {
    const deadline = new DrainDeadline(LIMITS);
    assert.deepEqual(
      run(deadline, () => deadline.output(1)),
      { end: 'ticks', tick: 10 },
    );
  });
});
