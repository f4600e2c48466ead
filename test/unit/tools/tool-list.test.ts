/**
 * spec/tools.schema.json, which the server ships and lists, is exactly what the zod schemas
 * generate: a schema change without `npm run spec` fails here.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listTools } from '../../../src/tools/index.js';
import { TOOL_LIST } from '../../../src/tools/tool-list.js';

describe('spec/tools.schema.json', () => {
  it('matches the tools generated from the zod schemas (run npm run spec after a change)', () => {
    assert.deepEqual(
      JSON.parse(JSON.stringify(TOOL_LIST)),
      JSON.parse(JSON.stringify(listTools())),
    );
  });
});
