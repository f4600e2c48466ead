import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { findComposites, toJsonSchema } from '../../../src/tools/json-schema.js';
import { generateToolList } from '../../../src/tools/tool-list.js';
import { TOOL_NAMES } from '../../helpers/tool-calls.js';

type Node = Record<string, unknown>;

/** Every object schema in `node` with its JSON pointer: a `type` of "object" or `properties`. */
function objectSchemas(node: unknown, path = ''): [string, Node][] {
  if (Array.isArray(node)) return node.flatMap((n, i) => objectSchemas(n, `${path}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  const schema = node as Node;
  const type = schema.type;
  const isObject =
    type === 'object' || (Array.isArray(type) && type.includes('object')) || 'properties' in schema;
  const found: [string, Node][] = isObject ? [[path, schema]] : [];
  for (const [key, value] of Object.entries(schema)) {
    found.push(...objectSchemas(value, `${path}/${key}`));
  }
  return found;
}

describe('tools/list input schemas', () => {
  const tools = generateToolList();

  it('lists the six tools', () => {
    assert.deepEqual(
      tools.map((t) => t.name),
      TOOL_NAMES,
    );
  });

  for (const tool of tools) {
    describe(tool.name, () => {
      it('is a top-level object schema', () => {
        assert.equal(tool.inputSchema.type, 'object');
        assert.equal(tool.outputSchema?.type, 'object');
      });

      it('has no anyOf, oneOf, allOf or $ref', () => {
        assert.deepEqual(findComposites(tool.inputSchema), []);
      });

      it('closes every object with additionalProperties: false', () => {
        // A record (terminal_start's env) has no properties: its additionalProperties is the
        // schema of its values, which must still say something, never allow anything.
        const objects = objectSchemas(tool.inputSchema);
        assert.ok(objects.length >= 1);
        for (const [path, schema] of objects) {
          const where = `${tool.name}${path || '/'}`;
          if ('properties' in schema) {
            assert.equal(schema.additionalProperties, false, where);
          } else {
            const values = schema.additionalProperties;
            assert.ok(typeof values === 'object' && values !== null && 'type' in values, where);
          }
        }
      });

      it('lists only declared properties as required', () => {
        for (const [path, schema] of objectSchemas(tool.inputSchema)) {
          const properties = Object.keys((schema.properties ?? {}) as Node);
          for (const name of (schema.required ?? []) as string[]) {
            assert.ok(properties.includes(name), `${tool.name}${path}: ${name}`);
          }
        }
      });
    });
  }
});

describe('toJsonSchema', () => {
  it('spells X | null as an anyOf of single types, never a type list', () => {
    const schema = toJsonSchema(z.strictObject({ a: z.string().nullable() }), 'output');
    const properties = schema.properties as Record<string, Node>;
    assert.deepEqual(properties.a, { anyOf: [{ type: 'string' }, { type: 'null' }] });
  });

  it("spells a free-form object's values additionalProperties: true, or leaves it out (output)", () => {
    const free = z.strictObject({ details: z.record(z.string(), z.unknown()) });
    const details = (io: 'input' | 'output') =>
      (toJsonSchema(free, io).properties as Record<string, Node>).details as Node;
    assert.equal(details('input').additionalProperties, true);
    assert.deepEqual(details('output'), { type: 'object' });
  });

  it('writes output schemas without descriptions or implied keywords, under an $id of their content', () => {
    const shape = z.strictObject({
      kind: z.enum(['a', 'b']).describe('which'),
      flag: z.literal(true).optional(),
      n: z.int(),
    });
    const schema = toJsonSchema(shape, 'output');
    assert.match(String(schema.$id), /^urn:agent-tty:result:[0-9a-f]{16}$/);
    assert.deepEqual(schema.properties, {
      kind: { enum: ['a', 'b'] },
      flag: { const: true },
      n: { type: 'integer' },
    });
    assert.equal(toJsonSchema(shape, 'output').$id, schema.$id, 'the same shape, the same id');
    const other = toJsonSchema(shape.extend({ m: z.int() }), 'output');
    assert.notEqual(other.$id, schema.$id, 'another shape, another id');
    const input = toJsonSchema(shape, 'input').properties as Record<string, Node>;
    assert.equal(input.kind?.description, 'which');
  });

  it('the four tools that show the screen share one output schema and its $id', () => {
    const byName = new Map(generateToolList().map((t) => [t.name, t.outputSchema]));
    const observation = byName.get('terminal_snapshot');
    for (const name of ['terminal_start', 'terminal_input', 'terminal_resize']) {
      assert.deepEqual(byName.get(name), observation, name);
    }
    const ids = new Set([...byName.values()].map((s) => s?.$id));
    assert.equal(ids.size, 3, 'observation, list and close results');
  });

  it('uses no keyword that draft-07 and 2020-12 read differently', () => {
    const found: string[] = [];
    const visit = (node: unknown, path: string): void => {
      if (node === null || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        const tuple = key === 'items' && Array.isArray(value);
        if (key === '$schema' || key === 'additionalItems' || key === 'prefixItems' || tuple) {
          found.push(`${path}/${key}`);
        }
        visit(value, `${path}/${key}`);
      }
    };
    for (const tool of generateToolList()) visit(tool, tool.name);
    assert.deepEqual(found, []);
  });

  it('no schema of the tool list has a type list or an empty schema (Inspector --strict)', () => {
    const problems: string[] = [];
    const visit = (node: unknown, path: string) => {
      if (Array.isArray(node)) {
        node.forEach((n, i) => {
          visit(n, `${path}/${i}`);
        });
        return;
      }
      if (node === null || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'type' && Array.isArray(value)) problems.push(`${path}/type`);
        if (key === 'additionalProperties' && isEmptyObject(value)) problems.push(`${path}/${key}`);
        if (key !== 'properties') visit(value, `${path}/${key}`);
        else
          for (const [name, child] of Object.entries(value as object))
            visit(child, `${path}/properties/${name}`);
      }
    };
    for (const tool of generateToolList()) {
      visit(tool.inputSchema, `${tool.name}/input`);
      visit(tool.outputSchema, `${tool.name}/output`);
    }
    assert.deepEqual(problems, []);
  });

  it('leaves a real union for findComposites to report', () => {
    const schema = toJsonSchema(
      z.strictObject({ u: z.union([z.strictObject({ a: z.string() }), z.int().array()]) }),
      'input',
    );
    assert.deepEqual(findComposites(schema), ['/properties/u/anyOf']);
  });

  it('throws on what JSON Schema cannot represent', () => {
    assert.throws(() => toJsonSchema(z.strictObject({ d: z.bigint() }), 'input'));
  });
});

describe('findComposites', () => {
  it('reports the JSON pointer of each composite keyword', () => {
    const schema = {
      type: 'object',
      properties: { a: { oneOf: [{ type: 'string' }, { $ref: '#/definitions/x' }] } },
      items: [{ allOf: [] }],
    };
    assert.deepEqual(findComposites(schema), [
      '/properties/a/oneOf',
      '/properties/a/oneOf/1/$ref',
      '/items/0/allOf',
    ]);
  });
});

function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 0
  );
}
