/**
 * The server's instructions (sent at initialize) name keys as terminal_input takes them: a chord
 * is a key plus modifiers, never one string such as "Ctrl+C", which the key field refuses.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isNamedKey, isPrintableKey } from '../../src/input/keys.js';
import { instructions } from '../../src/server.js';
import { DEFAULT_CONFIG } from '../../src/shared/config.js';

const INSTRUCTIONS = instructions(DEFAULT_CONFIG);

describe('server instructions', () => {
  it('quote only keys the key field accepts, and say a chord as key plus modifiers', () => {
    const quoted = [...INSTRUCTIONS.matchAll(/key "([^"]*)"|"([^"]+)"(?=[,;)\s]| or)/g)].map(
      (m) => m[1] ?? m[2] ?? '',
    );
    const keys = quoted.filter((q) => q !== 'Ctrl');
    assert.ok(keys.length > 0, `the instructions name keys: ${INSTRUCTIONS}`);
    for (const key of keys) {
      assert.ok(isNamedKey(key) || isPrintableKey(key), `"${key}" is a key the field accepts`);
    }
    assert.match(INSTRUCTIONS, /key "c" with modifiers \["Ctrl"\]/);
    assert.doesNotMatch(INSTRUCTIONS, /\(Enter, Ctrl\+C/, 'a chord is not listed as a key');
  });

  it("say this server's session limit and quiet interval, not the defaults", () => {
    const text = instructions({ maxSessions: 3, quietMs: 400 });
    assert.match(text, /at most 3 are kept/);
    assert.match(text, /quiet for 400 ms by default/);
    assert.match(instructions(DEFAULT_CONFIG), /at most 8 are kept/);
  });
});
