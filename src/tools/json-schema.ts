/**
 * JSON Schema for the tool list, generated from the zod schemas, in keywords that draft-07 (what
 * the MCP SDK emits) and 2020-12 (MCP's default dialect) read alike, so no `$schema` is sent; and
 * in the most portable spelling (MCP Inspector's --strict check finds nothing to warn about):
 * input schemas carry no anyOf/oneOf/allOf/$ref and no nullable field at all (a test holds them
 * so: Codex turns such parts into strings and Claude Code rejects them at the top level); in
 * output schemas a nullable value is an anyOf of single types, never a type list, and a free-form
 * object's values are `additionalProperties: true`, never an empty schema.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';

export type JsonSchema = { [key: string]: unknown };

const COMPOSITE_KEYS = ['anyOf', 'oneOf', 'allOf', '$ref'];

export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    target: 'draft-7',
    io,
    unrepresentable: 'throw',
  });
  const converted = portable(json) as JsonSchema;
  return io === 'output' ? identified(terse(converted) as JsonSchema) : converted;
}

/**
 * An output schema with a root `$id` taken from its content: the tools that answer with the same
 * shape carry the same id, and a client that caches validators by id (the MCP SDK's does)
 * compiles each shape once per connection instead of once per tool and per tools/list.
 */
function identified(schema: JsonSchema): JsonSchema {
  const digest = createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 16);
  return { $id: `urn:agent-tty:result:${digest}`, ...schema };
}

/**
 * An output schema in its shortest equivalent spelling: clients validate results with it and
 * models are not shown it (spec/tools.md documents every result field), so it goes without
 * descriptions, and without keywords another already implies: the type beside a string enum or a
 * `const`, a string key rule, and `additionalProperties: true`.
 */
function terse(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(terse);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'description' && typeof value === 'string') continue;
    out[key] = key === 'properties' ? mapValues(value, terse) : terse(value);
  }
  const implied =
    (Array.isArray(out.enum) && out.enum.every((v) => typeof v === 'string')) ||
    out.const !== undefined;
  if (implied && typeof out.type === 'string') delete out.type;
  if (JSON.stringify(out.propertyNames) === '{"type":"string"}') delete out.propertyNames;
  if (out.additionalProperties === true) delete out.additionalProperties;
  return out;
}

function mapValues(value: unknown, f: (v: unknown) => unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, f(v)]));
}

/**
 * A type list (`["string", "null"]`) as an anyOf of single types, its constraints on the non-null
 * branch; `additionalProperties: {}` (any value) spelled `true`, which says the same on purpose.
 */
function portable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(portable);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (isSafeIntegerBound(key, value)) continue;
    out[key] = key === 'additionalProperties' && isEmptySchema(value) ? true : portable(value);
  }
  sameItems(out);
  const { type, description, ...constraints } = out;
  if (!Array.isArray(type)) return out;
  return {
    ...(description === undefined ? {} : { description }),
    anyOf: type.map((t) => (t === 'null' ? { type: 'null' } : { ...constraints, type: t })),
  };
}

/** zod's `int()` bounds every integer to the safe range; JSON numbers past it are not integers anyway. */
function isSafeIntegerBound(key: string, value: unknown): boolean {
  return (
    (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) ||
    (key === 'maximum' && value === Number.MAX_SAFE_INTEGER)
  );
}

/**
 * A tuple whose positions all take the same schema (`[row, column, ...]` integers) as a plain
 * array of that schema with a fixed length: the same constraint, and one spelling that draft-07
 * and 2020-12 read alike (2020-12 calls tuples `prefixItems`).
 */
function sameItems(node: Record<string, unknown>): void {
  const { items, additionalItems } = node;
  if (!Array.isArray(items) || items.length === 0 || additionalItems !== false) return;
  const first = JSON.stringify(items[0]);
  if (!items.every((item) => JSON.stringify(item) === first)) return;
  node.items = items[0];
  delete node.additionalItems;
}

function isEmptySchema(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length === 0;
}

/** JSON pointers of every anyOf/oneOf/allOf/$ref in a schema. */
export function findComposites(node: unknown, path = ''): string[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => findComposites(n, `${path}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  const found: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (COMPOSITE_KEYS.includes(key)) found.push(`${path}/${key}`);
    found.push(...findComposites(value, `${path}/${key}`));
  }
  return found;
}
