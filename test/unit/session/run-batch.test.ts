import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eitherSignal } from '../../../src/session/run-batch.js';

describe('eitherSignal', () => {
  it('aborts when either aborts, and is the first when there is no second', () => {
    const a = new AbortController();
    assert.equal(eitherSignal(a.signal, undefined), a.signal);
    const b = new AbortController();
    const both = eitherSignal(a.signal, b.signal);
    assert.equal(both.aborted, false);
    b.abort();
    assert.equal(both.aborted, true);
    const c = new AbortController();
    const d = new AbortController();
    const other = eitherSignal(c.signal, d.signal);
    c.abort();
    assert.equal(other.aborted, true);
  });

  it('is already aborted when one of them is', () => {
    const done = new AbortController();
    done.abort();
    assert.equal(eitherSignal(new AbortController().signal, done.signal).aborted, true);
    assert.equal(eitherSignal(done.signal, new AbortController().signal).aborted, true);
  });
});
