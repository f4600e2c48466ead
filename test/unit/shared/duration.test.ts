import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDuration } from '../../../src/shared/duration.js';

describe('formatDuration', () => {
  it('writes ms, tenths of a second, seconds, minutes or hours, never rounding up', () => {
    assert.deepEqual(
      [0, 1, 999, 1000, 3299, 9999, 10_000, 119_999, 120_000, 3_600_000, 7_199_999].map(
        formatDuration,
      ),
      [
        '0 ms',
        '1 ms',
        '999 ms',
        '1.0 s',
        '3.2 s',
        '9.9 s',
        '10 s',
        '119 s',
        '2 min',
        '60 min',
        '119 min',
      ],
    );
    assert.deepEqual([7_200_000, 18_000_000, 86_400_000].map(formatDuration), [
      '2 h',
      '5 h',
      '24 h',
    ]);
  });
});
