/** Reserved names (`__proto__`, `constructor`, `prototype`) found at any depth of arguments. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TerminalError } from '../../../src/errors.js';
import { reservedKeysError } from '../../../src/tools/invalid-arguments.js';

function paths(args: unknown): string[] | undefined {
  const error = reservedKeysError('terminal_start', args);
  if (!error) return undefined;
  assert.ok(error instanceof TerminalError);
  assert.equal(error.code, 'INVALID_ARGUMENT');
  return (error.details.issues as { path: string }[]).map((i) => i.path);
}

describe('reservedKeysError', () => {
  it('names each reserved key as its field path, own keys only', () => {
    assert.deepEqual(paths(JSON.parse('{"__proto__":1,"env":{"constructor":"x"}}')), [
      '__proto__',
      'env.constructor',
    ]);
    assert.deepEqual(paths(JSON.parse('{"actions":[{"type":"text"},{"prototype":{}}]}')), [
      'actions[1].prototype',
    ]);
    assert.equal(
      paths({ command: 'x', env: { PATH: '/bin' }, actions: [{ type: 'text' }] }),
      undefined,
    );
    assert.equal(paths(undefined), undefined);
    assert.equal(paths('constructor'), undefined, 'a value is not a name');
    assert.equal(paths(['__proto__']), undefined);
  });

  it('says what to do and stops listing after ten', () => {
    const many = JSON.parse(`[${Array.from({ length: 12 }, () => '{"__proto__":0}').join(',')}]`);
    const error = reservedKeysError('terminal_input', many) as TerminalError;
    assert.equal((error.details.issues as unknown[]).length, 10);
    assert.match(
      error.message,
      /^invalid arguments for terminal_input: \[0\]\.__proto__: "__proto__" is not accepted as a name/,
    );
    assert.match(
      error.message,
      /\(and 2 more\); nothing was done: remove these fields and call terminal_input again$/,
    );
  });

  it('walks nesting deeper than the call stack', () => {
    const depth = 200_000;
    const json = `${'{"a":'.repeat(depth)}{"constructor":1}${'}'.repeat(depth)}`;
    const found = paths(JSON.parse(json));
    assert.deepEqual(found, ['a.a.a.a.a.a.a.a.….a.a.a.a.a.a.a.constructor'], 'cut in the middle');
  });
});
