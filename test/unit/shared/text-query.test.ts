import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TerminalError } from '../../../src/shared/errors.js';
import { compileQuery } from '../../../src/shared/text-query.js';

describe('compileQuery', () => {
  it('escapes literal text so that it matches itself', () => {
    const query = compileQuery({ text: 'a.b*c (1+1)? [x] {2} $^|\\' });
    assert.deepEqual(query.flags, 'gmu');
    const re = new RegExp(query.source, query.flags);
    assert.ok(re.test('> a.b*c (1+1)? [x] {2} $^|\\ <'));
    assert.equal(new RegExp(query.source, query.flags).test('aXb*c (1+1)? [x] {2} $^|\\'), false);
  });

  it('takes a pattern as given, and ignores case when asked', () => {
    assert.deepEqual(compileQuery({ pattern: '^\\$ $' }), { source: '^\\$ $', flags: 'gmu' });
    assert.deepEqual(compileQuery({ text: 'Hi', ignoreCase: true }), {
      source: 'Hi',
      flags: 'gmiu',
    });
    assert.deepEqual(compileQuery({}), { source: '', flags: 'gmu' });
  });

  it('refuses a pattern that is not a regular expression, naming the field', () => {
    assert.throws(
      () => compileQuery({ pattern: 'a(' }, 'until.pattern'),
      (err: unknown) => {
        assert.ok(err instanceof TerminalError);
        assert.equal(err.code, 'INVALID_ARGUMENT');
        assert.match(err.message, /^until\.pattern "a\(" is not a valid regular expression: /);
        assert.deepEqual(err.details, { pattern: 'a(' });
        return true;
      },
    );
    // Checked with the u flag: an escape that only passes without it is refused.
    assert.throws(() => compileQuery({ pattern: '\\q' }), TerminalError);
  });
});
