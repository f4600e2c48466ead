/** The errors of a wait that ended without its condition: WAIT_TIMEOUT and INPUT_REQUIRED. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { patternSubject, waitOutcomeError } from '../../../src/session/wait-errors.js';

describe('waitOutcomeError', () => {
  const subject = patternSubject('/Saved/', false);

  it('says how long a timed-out wait waited in words, and keeps timeoutMs exact in details', () => {
    const err = waitOutcomeError({ reason: 'timeout' }, subject, 30_000);
    assert.equal(err?.code, 'WAIT_TIMEOUT');
    assert.match(err?.message ?? '', /^waited 30 s for \/Saved\/ to appear; /);
    assert.deepEqual(err?.details, { timeoutMs: 30_000 });
    assert.match(
      waitOutcomeError({ reason: 'timeout' }, subject, 300)?.message ?? '',
      /^waited 300 ms /,
    );
  });

  it('says how long the program has been waiting for input in words, quietMs exact in details', () => {
    const err = waitOutcomeError({ reason: 'input', quietMs: 1312 }, subject, 30_000);
    assert.equal(err?.code, 'INPUT_REQUIRED');
    assert.match(err?.message ?? '', /and \/Saved\/ has not appeared \(quiet for 1\.3 s\); read/);
    assert.deepEqual(err?.details, { quietMs: 1312 });
  });

  it('is undefined when the condition came', () => {
    assert.equal(waitOutcomeError({ reason: 'matched' }, subject, 30_000), undefined);
  });
});
