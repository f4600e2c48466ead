/**
 * The output barrier (src/pty/output-barrier.ts) without a PTY: markers written to a scripted
 * slave descriptor and read back through onOutput, on a fake clock.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DRAIN_MAX_BYTES,
  DRAIN_MAX_TICKS,
  DRAIN_QUIET_TICKS,
  DRAIN_TICK_MS,
} from '../../../src/pty/drain-deadline.js';
import { DrainMarker } from '../../../src/pty/drain-marker.js';
import {
  BARRIER_TIMEOUT_MS,
  MARKER_RETRY_MS,
  OutputBarrier,
} from '../../../src/pty/output-barrier.js';
import { FakeTimers } from '../../helpers/fakes.js';

const SLAVE_FD = 9;
const text = (s: string) => Buffer.from(s, 'latin1');
const markerText = (n: number) => `\x1b]7799;M${n}\x07`;

interface Options {
  slaveFd?: number | undefined;
  /** Scripted answers of the slave: a number of bytes taken, or an errno code thrown. */
  writes?: (number | string)[];
}

function setup(options: Options = {}) {
  const timers = new FakeTimers();
  const delivered: string[] = [];
  const closed: number[] = [];
  const writes = [...(options.writes ?? [])];
  /** What reached the slave: the terminal echoes it out of the master in this order. */
  let slave = '';
  let markers = 0;
  const barrier = new OutputBarrier('slaveFd' in options ? options.slaveFd : SLAVE_FD, {
    timers,
    createMarker: () => new DrainMarker(text(markerText(++markers))),
    deliver: (chunk) => delivered.push(Buffer.from(chunk).toString('latin1')),
    close: (fd) => closed.push(fd),
    write: (fd, data, offset, length) => {
      assert.equal(fd, SLAVE_FD);
      const answer = writes.shift() ?? length;
      if (typeof answer === 'string') {
        throw Object.assign(new Error(answer), { code: answer });
      }
      const taken = Math.min(answer, length);
      slave += Buffer.from(data.subarray(offset, offset + taken)).toString('latin1');
      return taken;
    },
  });
  return {
    barrier,
    timers,
    delivered,
    closed,
    /** Reads `s` out of the master, as node-pty would deliver it. */
    read: (s: string) => barrier.onOutput(text(s)),
    /** Takes what was written to the slave so far. */
    takeSlave: () => {
      const out = slave;
      slave = '';
      return out;
    },
  };
}

/** Whether `promise` has settled, and with what, after pending microtasks ran. */
async function peek<T>(promise: Promise<T>): Promise<{ settled: boolean; value?: T }> {
  let state: { settled: boolean; value?: T } = { settled: false };
  void promise.then((value) => {
    state = { settled: true, value };
  });
  await new Promise((resolve) => setImmediate(resolve));
  return state;
}

describe('OutputBarrier.barrier', () => {
  it('resolves true once its marker is read back, and passes on the output around it', async () => {
    const t = setup();
    const done = t.barrier.barrier();
    assert.equal(t.takeSlave(), markerText(1));
    t.read('before');
    assert.deepEqual(await peek(done), { settled: false });
    t.read(`tail${markerText(1)}after`);
    assert.deepEqual(await peek(done), { settled: true, value: true });
    assert.equal(t.delivered.join(''), 'beforetailafter');
    assert.equal(t.timers.pending, 0, 'its deadline is cleared');
  });

  it('finds a marker split across reads, and passes on only real output', async () => {
    const t = setup();
    const done = t.barrier.barrier();
    const marker = markerText(1);
    t.read(`x${marker.slice(0, 4)}`);
    assert.equal(t.delivered.join(''), 'x');
    t.read(`${marker.slice(4)}y`);
    assert.equal(await done, true);
    assert.equal(t.delivered.join(''), 'xy');
  });

  it('resolves false at its deadline and releases bytes held for a partial marker', async () => {
    const t = setup();
    const done = t.barrier.barrier(100);
    t.read(`out${markerText(1).slice(0, 5)}`);
    t.timers.advance(99);
    assert.deepEqual(await peek(done), { settled: false });
    t.timers.advance(1);
    assert.equal(await done, false);
    assert.equal(t.delivered.join(''), `out${markerText(1).slice(0, 5)}`);
  });

  it('waits BARRIER_TIMEOUT_MS by default', async () => {
    const t = setup();
    const done = t.barrier.barrier();
    t.timers.advance(BARRIER_TIMEOUT_MS - 1);
    assert.deepEqual(await peek(done), { settled: false });
    t.timers.advance(1);
    assert.equal(await done, false);
  });

  it('retries the marker write while the terminal is full, resuming where it stopped', async () => {
    const t = setup({ writes: [4, 'EAGAIN', 'EAGAIN'] });
    const done = t.barrier.barrier();
    assert.equal(t.takeSlave(), markerText(1).slice(0, 4));
    t.timers.advance(MARKER_RETRY_MS);
    assert.equal(t.takeSlave(), '', 'still full');
    t.timers.advance(MARKER_RETRY_MS);
    assert.equal(t.takeSlave(), markerText(1).slice(4));
    t.read(markerText(1));
    assert.equal(await done, true);
  });

  it('stops retrying at the deadline', async () => {
    const t = setup({ writes: Array(1000).fill('EAGAIN') });
    const done = t.barrier.barrier(20);
    t.timers.advance(20);
    assert.equal(await done, false);
    assert.equal(t.timers.pending, 0, 'no retry is left behind');
  });

  it('resolves false at once when the slave refuses the write', async () => {
    const t = setup({ writes: ['EIO'] });
    assert.deepEqual(await peek(t.barrier.barrier()), { settled: true, value: false });
    assert.equal(t.timers.pending, 0);
  });

  it('resolves false at once without a slave side, writing nothing', async () => {
    const t = setup({ slaveFd: undefined });
    assert.deepEqual(await peek(t.barrier.barrier()), { settled: true, value: false });
    assert.equal(t.takeSlave(), '');
  });

  it('settles barriers in order: a later marker is looked for only after the earlier', async () => {
    const t = setup();
    const first = t.barrier.barrier();
    const second = t.barrier.barrier();
    t.read(`a${markerText(2)}b`);
    assert.deepEqual(await peek(first), { settled: false });
    assert.equal(t.delivered.join(''), `a${markerText(2)}b`, 'the second marker is output here');
    t.read(`${markerText(1)}c${markerText(2)}`);
    assert.equal(await first, true);
    assert.equal(await second, true);
    assert.equal(t.delivered.join(''), `a${markerText(2)}bc`);
  });
});

describe('OutputBarrier exit drain', () => {
  it('holds the stream destroy until the marker is back, then closes the slave', async () => {
    const t = setup();
    let destroyed = 0;
    assert.equal(
      t.barrier.holdDestroy(() => destroyed++),
      false,
      'not draining yet',
    );
    t.barrier.drainAfterExit();
    assert.equal(t.takeSlave(), markerText(1));
    assert.equal(
      t.barrier.holdDestroy(() => destroyed++),
      true,
    );
    t.read('last words');
    await peek(Promise.resolve());
    assert.deepEqual([destroyed, t.closed], [0, []]);
    t.read(markerText(1));
    await peek(Promise.resolve());
    assert.deepEqual([destroyed, t.closed], [1, [SLAVE_FD]]);
    assert.equal(t.delivered.join(''), 'last words');
    assert.equal(await t.barrier.barrier(), false, 'no barrier once the slave is closed');
    assert.equal(
      t.barrier.holdDestroy(() => destroyed++),
      false,
      'the drain is over',
    );
  });

  it('keeps waiting through a busy event loop while the last output is still being read', async () => {
    // The loop is busy for 300 ms at a time and reads one piece between: 1.5 s of wall time,
    // but only a few turns, each of which read something.
    const t = setup();
    let destroyed = 0;
    t.barrier.drainAfterExit();
    t.barrier.holdDestroy(() => destroyed++);
    for (let k = 1; k <= 5; k++) {
      t.timers.stall(300);
      t.read(`piece ${k};`);
    }
    t.timers.stall(300);
    await peek(Promise.resolve());
    assert.deepEqual([destroyed, t.closed], [0, []], 'still draining');
    t.read(`last${markerText(1)}`);
    await peek(Promise.resolve());
    assert.deepEqual([destroyed, t.closed], [1, [SLAVE_FD]]);
    assert.equal(t.delivered.join(''), 'piece 1;piece 2;piece 3;piece 4;piece 5;last');
  });

  it('counts quiet in turns of the loop: late ticks with nothing read count once each', async () => {
    const t = setup();
    let destroyed = 0;
    t.barrier.drainAfterExit();
    t.barrier.holdDestroy(() => destroyed++);
    for (let k = 1; k < DRAIN_QUIET_TICKS; k++) t.timers.stall(1000);
    await peek(Promise.resolve());
    assert.equal(destroyed, 0, `${DRAIN_QUIET_TICKS - 1} quiet turns, whatever their length`);
    t.timers.stall(1000);
    await peek(Promise.resolve());
    assert.deepEqual([destroyed, t.closed], [1, [SLAVE_FD]]);
  });

  it('gives up after DRAIN_QUIET_TICKS ticks with nothing read, at least 400 ms', async () => {
    const t = setup();
    let destroyed = 0;
    t.barrier.drainAfterExit();
    t.barrier.holdDestroy(() => destroyed++);
    t.timers.advance(DRAIN_TICK_MS * 10);
    t.read('late words');
    // The tick after the read counts it; the quiet ticks follow.
    t.timers.advance(DRAIN_TICK_MS * (DRAIN_QUIET_TICKS + 1) - 1);
    await peek(Promise.resolve());
    assert.equal(destroyed, 0, 'output restarts the count');
    t.timers.advance(1);
    await peek(Promise.resolve());
    assert.deepEqual([destroyed, t.closed], [1, [SLAVE_FD]]);
    assert.ok(DRAIN_TICK_MS * DRAIN_QUIET_TICKS >= 400);
    assert.equal(t.timers.pending, 0, 'no tick is left behind');
  });

  it('gives up once DRAIN_MAX_BYTES were read since the exit (a process still printing)', async () => {
    const t = setup();
    let destroyed = 0;
    t.barrier.drainAfterExit();
    t.barrier.holdDestroy(() => destroyed++);
    const piece = 'y'.repeat(64 * 1024);
    for (let read = 0; read < DRAIN_MAX_BYTES; read += piece.length) {
      t.read(piece);
      t.timers.advance(DRAIN_TICK_MS);
      await peek(Promise.resolve());
      assert.equal(destroyed, read + piece.length < DRAIN_MAX_BYTES ? 0 : 1);
    }
    assert.deepEqual(t.closed, [SLAVE_FD]);
  });

  it('gives up after DRAIN_MAX_TICKS ticks however the output trickles, at least 5 s', async () => {
    const t = setup();
    let destroyed = 0;
    t.barrier.drainAfterExit();
    t.barrier.holdDestroy(() => destroyed++);
    for (let tick = 1; tick <= DRAIN_MAX_TICKS; tick++) {
      t.read('.');
      t.timers.advance(DRAIN_TICK_MS);
      await peek(Promise.resolve());
      assert.equal(destroyed, tick < DRAIN_MAX_TICKS ? 0 : 1);
    }
    assert.ok(DRAIN_TICK_MS * DRAIN_MAX_TICKS >= 5000);
  });

  it('keeps retrying a marker the full terminal refuses until the drain gives up', async () => {
    const t = setup({ writes: Array(10_000).fill('EAGAIN') });
    let destroyed = 0;
    t.barrier.drainAfterExit();
    t.barrier.holdDestroy(() => destroyed++);
    t.timers.advance(DRAIN_TICK_MS * DRAIN_QUIET_TICKS);
    await peek(Promise.resolve());
    assert.equal(destroyed, 1);
    assert.equal(t.timers.pending, 0, 'no retry is left behind');
  });

  it('ends at once without a slave side', async () => {
    const t = setup({ slaveFd: undefined });
    let destroyed = 0;
    t.barrier.drainAfterExit();
    t.barrier.holdDestroy(() => destroyed++);
    await peek(Promise.resolve());
    assert.equal(destroyed, 1);
  });
});

describe('OutputBarrier at the end', () => {
  it('settleAll ends pending barriers as not delivered and passes held bytes on', async () => {
    const t = setup();
    const done = t.barrier.barrier();
    t.read(`out${markerText(1).slice(0, 3)}`);
    t.barrier.closeSlave();
    t.barrier.settleAll();
    assert.equal(await done, false);
    assert.equal(t.delivered.join(''), `out${markerText(1).slice(0, 3)}`);
    assert.deepEqual(t.closed, [SLAVE_FD]);
    t.barrier.closeSlave();
    assert.deepEqual(t.closed, [SLAVE_FD], 'closed once');
  });

  it('dispose ends barriers, drops held bytes, closes the slave and releases a held destroy', async () => {
    const t = setup();
    let destroyed = 0;
    const pending = t.barrier.barrier();
    t.barrier.drainAfterExit();
    t.barrier.holdDestroy(() => destroyed++);
    t.read(`out${markerText(1).slice(0, 3)}`);
    t.barrier.dispose();
    assert.equal(await pending, false);
    assert.equal(t.delivered.join(''), 'out');
    assert.deepEqual([destroyed, t.closed], [1, [SLAVE_FD]]);
    assert.equal(
      t.barrier.holdDestroy(() => destroyed++),
      false,
    );
    assert.equal(await t.barrier.barrier(), false);
    assert.equal(t.timers.pending, 0);
  });
});
