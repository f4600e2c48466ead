/**
 * JSON Schema for the tool list, generated from the zod schemas (draft-07, as the MCP SDK emits).
 * Input schemas are made plain enough for every client: `X | null` becomes `type: [X, "null"]`,
 * and any remaining anyOf/oneOf/allOf/$ref is a bug caught at start-up and in tests, because
 * Codex turns such parts into strings and Claude Code rejects them at the top level.
 */
import { z } from 'zod';

export type JsonSchema = { [key: string]: unknown };

const COMPOSITE_KEYS = ['anyOf', 'oneOf', 'allOf', '$ref'];

export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'throw' });
  return simplifyNullable(json) as JsonSchema;
}

function simplifyNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(simplifyNullable);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = simplifyNullable(value);
  const anyOf = out.anyOf;
  if (Array.isArray(anyOf) && anyOf.length === 2) {
    const nullIndex = anyOf.findIndex((s) => isNullType(s));
    const other = anyOf[1 - nullIndex] as Record<string, unknown> | undefined;
    if (nullIndex !== -1 && other && typeof other.type === 'string' && !('anyOf' in other)) {
      delete out.anyOf;
      return { ...other, ...out, type: [other.type, 'null'] };
    }
  }
  return out;
}

function isNullType(schema: unknown): boolean {
  return (
    typeof schema === 'object' &&
    schema !== null &&
    (schema as Record<string, unknown>).type === 'null' &&
    Object.keys(schema).length === 1
  );
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
