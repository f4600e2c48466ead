/**
 * The tools/list entries, in the order of TOOLS. The server serves the JSON Schemas that `npm run
 * spec` generated from the zod schemas into spec/tools.schema.json, which spares building and
 * converting the schemas at every start-up; a test fails when that file drifts from them.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import generated from '../../spec/tools.schema.json' with { type: 'json' };
import { TOOLS } from './index.js';
import { toJsonSchema } from './json-schema.js';
import type { ToolDefinition } from './tool.js';

type ToolSchemas = Pick<Tool, 'inputSchema' | 'outputSchema'>;

/** The entries tools/list answers with: each tool of TOOLS, its schemas from the generated file. */
export function listTools(): Tool[] {
  const byName = new Map<string, ToolSchemas>(
    (generated as unknown as { tools: Tool[] }).tools.map((t) => [t.name, t]),
  );
  return TOOLS.map((tool) => {
    const schemas = byName.get(tool.name);
    if (!schemas) {
      throw new Error(`spec/tools.schema.json lacks ${tool.name}; run npm run spec`);
    }
    return entry(tool, schemas);
  });
}

/** The same entries with the schemas converted from zod now: what `npm run spec` writes. */
export function generateToolList(): Tool[] {
  return TOOLS.map((tool) =>
    entry(tool, {
      inputSchema: toJsonSchema(tool.inputSchema(), 'input') as Tool['inputSchema'],
      outputSchema: toJsonSchema(tool.outputSchema(), 'output') as Tool['outputSchema'],
    }),
  );
}

function entry(tool: ToolDefinition, schemas: ToolSchemas): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: schemas.inputSchema,
    outputSchema: schemas.outputSchema,
    annotations: tool.annotations,
  };
}
