/**
 * spec/tools.schema.json, whose schemas the server lists, is exactly what the zod schemas
 * generate: a schema change without `npm run spec` fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { generateToolList, listTools } from '../../../src/tools/tool-list.js';
import { ROOT } from '../../helpers/paths.js';

const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe('spec/tools.schema.json', () => {
  it('matches the tools generated from the zod schemas (run npm run spec after a change)', () => {
    const file = JSON.parse(readFileSync(join(ROOT, 'spec', 'tools.schema.json'), 'utf8'));
    assert.deepEqual(file, plain({ tools: generateToolList() }));
  });

  it('is what tools/list serves, in the order of TOOLS', () => {
    assert.equal(JSON.stringify(listTools()), JSON.stringify(generateToolList()));
  });
});
