import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  createBearerCheck,
  FAILURE_MEMORY_MS,
  FailureDelay,
  MAX_FAILURE_DELAY_MS,
  MAX_TRACKED_ADDRESSES,
} from '../../../src/transport/http-auth.js';

describe('createBearerCheck', () => {
  const check = createBearerCheck('a'.repeat(64));

  it('accepts the token as a Bearer credential, any case of the scheme', () => {
    assert.deepEqual(check(`Bearer ${'a'.repeat(64)}`, '/mcp'), { ok: true });
    assert.deepEqual(check(`bearer ${'a'.repeat(64)}`, '/mcp'), { ok: true });
  });

  it('refuses a missing, malformed, wrong, longer or shorter token', () => {
    assert.deepEqual(check(undefined, '/mcp'), { ok: false, reason: 'missing' });
    assert.deepEqual(check('Basic abc', '/mcp'), { ok: false, reason: 'missing' });
    for (const wrong of ['b'.repeat(64), 'a'.repeat(63), 'a'.repeat(65), '']) {
      assert.equal(check(`Bearer ${wrong}`, '/mcp').ok, false, wrong);
    }
  });

  it('refuses any query string, even beside the right token', () => {
    assert.deepEqual(check(`Bearer ${'a'.repeat(64)}`, `/mcp?x=1`), {
      ok: false,
      reason: 'in-url',
    });
  });
});

/** A FailureDelay on a clock the test moves. */
function onFakeClock(maxAddresses?: number) {
  const clock = { nowMs: 0 };
  const delay = new FailureDelay(() => clock.nowMs, maxAddresses);
  return { clock, delay };
}

describe('FailureDelay', () => {
  it('doubles from 50 ms to 2 s per failure of an address, others unaffected', () => {
    const { clock, delay } = onFakeClock();
    const seen = Array.from({ length: 8 }, () => delay.fail('10.0.0.1').delayMs);
    assert.deepEqual(seen, [50, 100, 200, 400, 800, 1600, 2000, 2000]);
    assert.deepEqual(delay.fail('10.0.0.2'), { delayMs: 50, count: 1 });
    clock.nowMs += FAILURE_MEMORY_MS;
    assert.equal(delay.fail('10.0.0.1').delayMs, 50, 'forgotten after a quiet minute');
    assert.ok(MAX_FAILURE_DELAY_MS === 2000);
  });

  it('stays at 2 s however many failures, and counts each one', () => {
    const { delay } = onFakeClock();
    let last = { delayMs: 0, count: 0 };
    for (let i = 0; i < 5000; i++) last = delay.fail('10.0.0.1');
    assert.deepEqual(last, { delayMs: MAX_FAILURE_DELAY_MS, count: 5000 });
  });

  it('remembers an address for a minute after its last failure, not its first', () => {
    const { clock, delay } = onFakeClock();
    for (let i = 1; i <= 4; i++) {
      assert.equal(delay.fail('10.0.0.1').count, i);
      clock.nowMs += FAILURE_MEMORY_MS - 1;
    }
    assert.deepEqual(delay.fail('10.0.0.1'), { delayMs: 800, count: 5 }, 'a minute less 1 ms');
    clock.nowMs += FAILURE_MEMORY_MS;
    assert.deepEqual(delay.fail('10.0.0.1'), { delayMs: 50, count: 1 }, 'a minute exactly');
    assert.deepEqual(delay.fail('10.0.0.1'), { delayMs: 100, count: 2 }, 'counted from there');
  });

  it('remembers a bounded number of addresses, forgetting the oldest', () => {
    const { delay } = onFakeClock(3);
    for (const a of ['a', 'b', 'c', 'd']) delay.fail(a);
    assert.equal(delay.size, 3);
    assert.equal(delay.fail('a').count, 1, 'a was forgotten');
    assert.equal(delay.fail('d').count, 2, 'd was kept');
  });

  it('forgets the address whose last failure is oldest, not the first one seen', () => {
    const { delay } = onFakeClock(3);
    for (const a of ['a', 'b', 'c', 'a', 'd']) delay.fail(a);
    assert.equal(delay.size, 3);
    assert.equal(delay.fail('a').count, 3, 'a failed again before d came, so it was kept');
    assert.equal(delay.fail('b').count, 1, 'b was forgotten');
  });

  it('remembers at most 4 096 addresses by default', () => {
    const { delay } = onFakeClock();
    for (let i = 0; i <= MAX_TRACKED_ADDRESSES; i++) delay.fail(`10.0.${i >> 8}.${i & 255}`);
    assert.equal(MAX_TRACKED_ADDRESSES, 4096);
    assert.equal(delay.size, MAX_TRACKED_ADDRESSES);
    assert.equal(delay.fail('10.0.0.0').count, 1, 'the first was forgotten');
  });
});
