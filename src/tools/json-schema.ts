/**
 * JSON Schema for the tool list, generated from the zod schemas, in keywords that draft-07 (what
 * the MCP SDK emits) and 2020-12 (MCP's default dialect) read alike, so no `$schema` is sent; and
 * in the most portable spelling (MCP Inspector's --strict check finds nothing to warn about):
 * input schemas carry no anyOf/oneOf/allOf/$ref and no nullable field at all (a test holds them
 * so: Codex turns such parts into strings and Claude Code rejects them at the top level); in
 * output schemas a nullable value is an anyOf of single types, never a type list, and a free-form
 * object's values are `additionalProperties: true`, never an empty schema.
 */
import { z } from 'zod';

export type JsonSchema = { [key: string]: unknown };

const COMPOSITE_KEYS = ['anyOf', 'oneOf', 'allOf', '$ref'];

export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    target: 'draft-7',
    io,
    unrepresentable: 'throw',
  });
  return portable(json) as JsonSchema;
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
