import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXPECT_TIMEOUT_MS, parseTestScript } from '../../../src/cli/test-script.js';
import { TerminalError } from '../../../src/shared/errors.js';

const QUIET_MS = 300;

/** The message `json` is refused with, as an error with `code`. */
function refusal(json: unknown, code = 'INVALID_ARGUMENT'): string {
  try {
    parseTestScript(json, QUIET_MS);
  } catch (err) {
    assert.ok(err instanceof TerminalError);
    assert.equal(err.code, code);
    return err.message;
  }
  assert.fail('the script was accepted');
}

describe('parseTestScript', () => {
  it('fills in the size and turns each step into its kind, in order', () => {
    const script = parseTestScript(
      {
        name: 'greets',
        command: 'bash',
        steps: [
          { type: 'text', text: 'echo hi\n' },
          { type: 'expect', text: 'hi' },
          { type: 'resize', cols: 100, rows: 30 },
          { type: 'expectExit', code: 0 },
        ],
      },
      QUIET_MS,
    );
    assert.equal(script.name, 'greets');
    assert.equal(script.command, 'bash');
    assert.deepEqual([script.cols, script.rows], [80, 24]);
    assert.deepEqual(
      script.steps.map((s) => [s.kind, s.index]),
      [
        ['action', 0],
        ['expect', 1],
        ['resize', 2],
        ['expectExit', 3],
      ],
    );
    assert.deepEqual(script.steps[0], {
      kind: 'action',
      action: { type: 'text', text: 'echo hi\n' },
      index: 0,
    });
    assert.deepEqual(script.steps[2], { kind: 'resize', index: 2, cols: 100, rows: 30 });
    assert.deepEqual(script.steps[3], {
      kind: 'expectExit',
      index: 3,
      code: 0,
      signal: undefined,
      timeoutMs: 30_000,
      stopOnInput: true,
    });
  });

  it('compiles an expect: literal text escaped, its defaults, and a pattern as given', () => {
    const script = parseTestScript(
      {
        name: 'x',
        steps: [
          { type: 'expect', text: '1+1=2?' },
          { type: 'expect', pattern: 'ok|done', ignoreCase: true, absent: true, timeoutMs: 99 },
        ],
      },
      QUIET_MS,
    );
    const [text, pattern] = script.steps;
    assert.ok(text?.kind === 'expect' && pattern?.kind === 'expect');
    assert.deepEqual(text.query, { source: '1\\+1=2\\?', flags: 'gmu' });
    assert.equal(text.description, '"1+1=2?"');
    assert.equal(text.timeoutMs, EXPECT_TIMEOUT_MS);
    assert.equal(text.absent, false);
    assert.equal(text.stopOnInput, true);
    assert.deepEqual(pattern.query, { source: 'ok|done', flags: 'gmiu' });
    assert.equal(pattern.description, '/ok|done/');
    assert.equal(pattern.absent, true);
    assert.equal(pattern.timeoutMs, 99);
  });

  it('takes a style expectation at a cell without text', () => {
    const [step] = parseTestScript(
      { name: 'x', steps: [{ type: 'expect', style: { bold: true }, row: 1, column: 2 }] },
      QUIET_MS,
    ).steps;
    assert.ok(step?.kind === 'expect');
    assert.equal(step.description, 'style');
    assert.deepEqual([step.row, step.column, step.style], [1, 2, { bold: true }]);
  });

  it('names the first problem and where it is', () => {
    assert.match(refusal({ steps: [{ type: 'text', text: 'x' }] }), /^script\.name: /);
    assert.match(refusal({ name: 'x', steps: [] }), /^script\.steps: /);
    assert.match(
      refusal({ name: 'x', steps: [{ type: 'text', text: 'a' }, { type: 'jump' }] }),
      /^steps\[1\]: unknown step type "jump" \(text, paste, key, mouse, focus, raw, wait, expect, expectExit, resize\)$/,
    );
    assert.equal(
      refusal({ name: 'x', steps: [{ type: 'expect', text: 'a', pattern: 'b' }] }),
      'steps[0]: an expect takes text or pattern (and/or style at a cell)',
    );
    assert.equal(
      refusal({ name: 'x', steps: [{ type: 'expect', style: { bold: true }, row: 1 }] }),
      'steps[0]: a style expectation needs row and column',
    );
    assert.match(
      refusal({ name: 'x', steps: [{ type: 'resize', cols: 0, rows: 24 }] }),
      /^steps\[0\]\.cols: /,
    );
    assert.match(
      refusal({ name: 'x', steps: [{ type: 'expect', pattern: '(' }] }),
      /^pattern "\(" is not a valid regular expression/,
    );
    assert.match(
      refusal({ name: 'x', steps: [{ type: 'expectExit', code: 0, extra: 1 }] }),
      /^steps\[0\]: /,
    );
  });

  it('checks actions as terminal_input does, before anything runs', () => {
    assert.match(
      refusal({ name: 'x', steps: [{ type: 'key', key: 'Entr' }] }, 'INVALID_KEY'),
      /Enter/,
    );
    assert.match(refusal({ name: 'x', steps: [{ type: 'text' }] }), /^steps\[0\]/);
  });
});
