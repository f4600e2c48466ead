/**
 * The refusal log on a fake clock (issue 35, S5): refusals are a summary per address and minute,
 * not a line each, within a bounded number of lines and addresses.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAX_REFUSAL_LINES,
  REFUSAL_WINDOW_MS,
  RefusalLog,
} from '../../../src/transport/http-refusals.js';
import { FakeClock } from '../../helpers/fakes.js';

function logOnFakeClock(maxAddresses?: number) {
  const clock = new FakeClock();
  const lines: string[] = [];
  const log = new RefusalLog((line) => lines.push(line), clock, maxAddresses);
  return { clock, lines, log };
}

describe('RefusalLog', () => {
  it('says the first refusal at once, and 1 000 more as one line when the minute ends', async () => {
    const { clock, lines, log } = logOnFakeClock();
    log.record('10.0.0.1', 'host');
    assert.equal(lines.length, 1);
    assert.match(lines[0] as string, /^refused a request from 10\.0\.0\.1: a bad Host/);
    for (let i = 0; i < 1000; i++) log.record('10.0.0.1', i % 2 ? 'host' : 'wrong-token');
    assert.equal(lines.length, 1, 'nothing more within the minute');
    await clock.advance(REFUSAL_WINDOW_MS);
    assert.equal(lines.length, 2);
    assert.match(
      lines[1] as string,
      /^refused 1001 requests from 10\.0\.0\.1 in the last minute or less: 501 × a bad Host, 500 × a wrong bearer token$/,
    );
    log.record('10.0.0.1', 'host');
    assert.equal(lines.length, 3, 'a new minute: its first refusal is said again');
  });

  it('writes no summary for an address refused once, and stops its timer when empty', async () => {
    const { clock, lines, log } = logOnFakeClock();
    log.record('10.0.0.1', 'path');
    await clock.advance(REFUSAL_WINDOW_MS);
    assert.equal(lines.length, 1);
    assert.equal(clock.pendingTimers, 0);
    await clock.advance(10 * REFUSAL_WINDOW_MS);
    assert.equal(lines.length, 1);
  });

  it('bounds lines and addresses however many addresses are refused', async () => {
    const { clock, lines, log } = logOnFakeClock(100);
    for (let i = 0; i < 5000; i++) {
      log.record(`10.0.${i >> 8}.${i & 255}`, 'missing-token');
      log.record(`10.0.${i >> 8}.${i & 255}`, 'missing-token');
    }
    assert.equal(lines.length, MAX_REFUSAL_LINES, 'first refusals said at once: a few');
    assert.equal(log.size, 100, 'addresses counted: bounded');
    await clock.advance(REFUSAL_WINDOW_MS);
    assert.equal(lines.length, 2 * MAX_REFUSAL_LINES + 1, 'the summary: as many, and one sum');
    assert.match(lines.at(-1) as string, /^refused \d+ more requests from 84\+ other addresses/);
    assert.equal(log.size, 0);
  });

  it('flushes what it counted at shutdown', () => {
    const { lines, log } = logOnFakeClock();
    log.record('::1', 'no-token-in-time');
    log.record('::1', 'no-token-in-time');
    log.flush();
    assert.match(lines.at(-1) as string, /^refused 2 requests from ::1 .*2 × a connection closed/);
  });
});
