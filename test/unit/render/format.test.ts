import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDuration, formatSnapshot, settleText } from '../../../src/render/format.js';
import type { Snapshot } from '../../../src/session/session.js';

/** A running session's settled snapshot with these rows, and `extra` on top. */
function snapshotOf(screen: string[], extra: Partial<Snapshot> = {}): Snapshot {
  return {
    status: 'running',
    cols: 20,
    rows: screen.length,
    buffer: 'normal',
    screen,
    cursor: { row: 1, column: 1, visible: true },
    styles: [],
    spans: [],
    mouse: { tracking: 'none', encoding: 'default' },
    settled: true,
    settle: 'quiet',
    historyTotal: 0,
    ...extra,
  };
}

describe('formatSnapshot: how the screen was observed', () => {
  it('says settled after a quiet, input or exit observation', () => {
    for (const settle of ['quiet', 'input', 'exited'] as const) {
      assert.equal(settleText({ settled: true, settle }), 'settled');
    }
  });

  it('says still changing only when a settle wait reached its deadline', () => {
    const s = snapshotOf(['42'], { settled: false, settle: 'timeout' });
    assert.equal(
      formatSnapshot('t1', s).split('\n')[0],
      'session t1 · running · still changing at the deadline',
    );
  });

  it('says how long an unobserved screen has been quiet', () => {
    const s = snapshotOf(['>>> '], {
      settled: false,
      settle: 'none',
      quietMs: 3250,
      waitingForInput: true,
    });
    assert.equal(
      formatSnapshot('t4', s).split('\n')[0],
      'session t4 · running · quiet for 3.2 s · waiting for input',
    );
    assert.equal(
      settleText({ settled: false, settle: 'none', quietMs: 0 }),
      'output still arriving',
    );
    assert.equal(settleText({ settled: false, settle: 'none' }), 'not observed');
  });

  it('writes durations in ms, tenths of a second, seconds or minutes, never rounding up', () => {
    assert.deepEqual(
      [1, 999, 1000, 3299, 9999, 10_000, 119_999, 120_000, 3_600_000].map(formatDuration),
      ['1 ms', '999 ms', '1.0 s', '3.2 s', '9.9 s', '10 s', '119 s', '2 min', '60 min'],
    );
  });
});
