/**
 * The error codes are one list in three places: ERROR_CODES in src/shared/errors.ts, one row each in
 * spec/errors.md, and the `error.code` enum of every tool's output schema in
 * spec/tools.schema.json. A code added to one place only fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { adviseUnknownKey } from '../../../src/input/key-advice.js';
import { MOUSE_NOT_ENABLED_ADVICE } from '../../../src/session/check-batch.js';
import { ERROR_CODES } from '../../../src/shared/errors.js';
import { errorRow, errorRows } from '../../helpers/error-spec.js';
import { ROOT } from '../../helpers/paths.js';

/** The next-step cell of a code's row in spec/errors.md, backquotes removed. */
function nextStep(code: string): string {
  return errorRow(code).nextStep.replace(/`/g, '');
}

/** The code of every table row of spec/errors.md, in order. */
function documentedCodes(): string[] {
  return errorRows().map((row) => row.code);
}

interface SchemaFile {
  tools: {
    name: string;
    outputSchema: {
      properties: { error?: { properties: { code: { enum?: string[] } } } };
    };
  }[];
}

/** Each tool's `error.code` enum in spec/tools.schema.json. */
function schemaEnums(): [tool: string, codes: string[] | undefined][] {
  const file = JSON.parse(readFileSync(join(ROOT, 'spec/tools.schema.json'), 'utf8')) as SchemaFile;
  return file.tools.map((t) => [t.name, t.outputSchema.properties.error?.properties.code.enum]);
}

const duplicates = (codes: readonly string[]) => codes.filter((c, i) => codes.indexOf(c) !== i);

describe('error codes', () => {
  it('ERROR_CODES has no duplicates', () => {
    assert.deepEqual(duplicates(ERROR_CODES), []);
  });

  it('spec/errors.md has exactly one row per code of ERROR_CODES', () => {
    const documented = documentedCodes();
    assert.deepEqual(duplicates(documented), [], 'codes with more than one row');
    assert.deepEqual(
      [...documented].sort(),
      [...ERROR_CODES].sort(),
      'codes in spec/errors.md versus ERROR_CODES in src/shared/errors.ts',
    );
  });

  it("every tool's error code enum in spec/tools.schema.json is ERROR_CODES", () => {
    const enums = schemaEnums();
    assert.equal(enums.length, 6);
    for (const [tool, codes] of enums) {
      assert.ok(codes, `${tool} has an error.code enum`);
      assert.deepEqual(duplicates(codes), [], `${tool}: duplicate codes`);
      assert.deepEqual([...codes].sort(), [...ERROR_CODES].sort(), `${tool}: error.code enum`);
    }
  });

  it('the key and mouse advice in spec/errors.md is what the messages say', () => {
    const chord = /send (\{.*\})$/.exec(adviseUnknownKey('Ctrl+C'))?.[1];
    assert.ok(chord, 'the Ctrl+C advice ends with the action to send');
    assert.ok(nextStep('INVALID_KEY').includes(`Ctrl+C → ${chord}`), nextStep('INVALID_KEY'));
    const keyboard = MOUSE_NOT_ENABLED_ADVICE.slice(MOUSE_NOT_ENABLED_ADVICE.indexOf('or use'));
    assert.match(keyboard, /^or use the keyboard: /);
    assert.ok(
      nextStep('MOUSE_NOT_ENABLED').endsWith(`${keyboard}.`),
      nextStep('MOUSE_NOT_ENABLED'),
    );
  });
});
