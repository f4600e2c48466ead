/**
 * spec/tools.schema.json, whose schemas the server lists, is exactly what the zod schemas
 * generate: a schema change without `npm run spec` fails here. And what a model is given for each
 * tool (name, description, input schema) stays small and complete: a size budget, a description
 * on every input field, terminal_input's waits named in its description.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
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

/** JSON length of the names, descriptions and input schemas of all tools together. */
const MODEL_FACING_BUDGET = 8500;

type Node = Record<string, unknown>;

/** Every property schema in `node`, recursively, with its JSON pointer. */
function properties(node: unknown, path = ''): [string, Node][] {
  if (Array.isArray(node)) return node.flatMap((n, i) => properties(n, `${path}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  const found: [string, Node][] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' && value !== null && typeof value === 'object') {
      for (const [name, child] of Object.entries(value)) {
        found.push([`${path}/properties/${name}`, child as Node]);
        found.push(...properties(child, `${path}/properties/${name}`));
      }
    } else {
      found.push(...properties(value, `${path}/${key}`));
    }
  }
  return found;
}

const modelFacing = (tool: Tool) =>
  JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema });

describe('what the model is given', () => {
  const tools = generateToolList();
  const byName = new Map(tools.map((t) => [t.name, t]));

  it(`fits in ${MODEL_FACING_BUDGET} bytes: names, descriptions and input schemas`, () => {
    const sizes = tools.map((t) => `${t.name} ${modelFacing(t).length}`).join(', ');
    const total = tools.reduce((sum, t) => sum + modelFacing(t).length, 0);
    assert.ok(total <= MODEL_FACING_BUDGET, `${total} bytes (${sizes})`);
  });

  it('describes every input field, nested ones included', () => {
    const undescribed = tools.flatMap((tool) =>
      properties(tool.inputSchema)
        .filter(
          ([, schema]) => typeof schema.description !== 'string' || !schema.description.trim(),
        )
        .map(([path]) => `${tool.name}${path}`),
    );
    assert.deepEqual(undescribed, []);
  });

  it("terminal_input's description names the settle, pattern, gone and exit waits", () => {
    const description = byName.get('terminal_input')?.description ?? '';
    for (const word of ['{"type":"wait"}', 'settle', 'pattern', 'gone', 'exit']) {
      assert.ok(description.includes(word), `${word} in: ${description}`);
    }
  });

  it("a wait action's settle fields read as that wait's, not the call's", () => {
    const input = byName.get('terminal_input')?.inputSchema as Node;
    const call = input.properties as Record<string, Node>;
    const actions = call.actions as { items: { properties: Record<string, Node> } };
    for (const field of ['settleMs', 'settleTimeoutMs']) {
      const own = actions.items.properties[field]?.description as string;
      assert.notEqual(own, call[field]?.description, field);
      assert.match(own, /this wait/, field);
    }
  });
});
