/**
 * Reserved names (`__proto__`, `constructor`, `prototype`) found at any depth of arguments; the
 * advice in schema errors (the accepted field an unknown one is near, a string for a list).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { TerminalError } from '../../../src/shared/errors.js';
import { invalidArguments, reservedKeysError } from '../../../src/tools/invalid-arguments.js';

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

describe('invalidArguments advice', () => {
  const schema = z.strictObject({
    command: z.string().optional(),
    settleMs: z.int().optional(),
    settleTimeoutMs: z.int().optional(),
    actions: z
      .array(z.strictObject({ text: z.string().optional(), keys: z.array(z.string()).max(3) }))
      .optional(),
  });
  const message = (args: unknown) => {
    const parsed = schema.safeParse(args, { reportInput: true });
    assert.equal(parsed.success, false);
    return invalidArguments('terminal_x', (parsed as { error: z.ZodError }).error, schema).message;
  };

  it('names the accepted field an unknown one is near, begins, or is another name for', () => {
    assert.match(message({ cmd: 'x' }), /unknown field "cmd" \(did you mean "command"\?\)/);
    assert.match(message({ settle_ms: 1 }), /"settle_ms" \(did you mean "settleMs"\?\)/);
    assert.match(
      message({ settle: 1 }),
      /"settle" \(did you mean "settleMs" or "settleTimeoutMs"\?\)/,
    );
    assert.match(
      message({ actions: [{ keys: [], txet: 'a' }] }),
      /actions\[0\]: unknown field "txet" \(did you mean "text"\?\)/,
    );
    assert.match(message({ zzzzzz: 1 }), /unknown field "zzzzzz"; nothing was done/);
  });

  it('says a string given for a list once, with the list to pass', () => {
    const text = message({ actions: [{ keys: 'Ctrl+Shift' }] });
    assert.match(
      text,
      /actions\[0\]\.keys: expected an array, got "Ctrl\+Shift": pass \["Ctrl","Shift"\]; nothing/,
    );
    assert.doesNotMatch(text, /at most/);
  });
});
