import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  createBearerCheck,
  FAILURE_MEMORY_MS,
  FailureDelay,
  MAX_FAILURE_DELAY_MS,
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

describe('FailureDelay', () => {
  it('doubles from 50 ms to 2 s per failure of an address, others unaffected', () => {
    let now = 0;
    const delay = new FailureDelay(() => now);
    const seen = Array.from({ length: 8 }, () => delay.fail('10.0.0.1').delayMs);
    assert.deepEqual(seen, [50, 100, 200, 400, 800, 1600, 2000, 2000]);
    assert.deepEqual(delay.fail('10.0.0.2'), { delayMs: 50, count: 1 });
    now += FAILURE_MEMORY_MS;
    assert.equal(delay.fail('10.0.0.1').delayMs, 50, 'forgotten after a quiet minute');
    assert.ok(MAX_FAILURE_DELAY_MS === 2000);
  });

  it('remembers a bounded number of addresses, forgetting the oldest', () => {
    const delay = new FailureDelay(() => 0, 3);
    for (const a of ['a', 'b', 'c', 'd']) delay.fail(a);
    assert.equal(delay.size, 3);
    assert.equal(delay.fail('a').count, 1, 'a was forgotten');
    assert.equal(delay.fail('d').count, 2, 'd was kept');
  });
});
