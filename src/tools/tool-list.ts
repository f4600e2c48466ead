/**
 * The tools/list entries, as generated from the zod schemas into spec/tools.schema.json by
 * `npm run spec`. Shipping the generated JSON spares converting schemas at every start-up; a test
 * fails when it drifts from the schemas.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import generated from '../../spec/tools.schema.json' with { type: 'json' };

export const TOOL_LIST: readonly Tool[] = (generated as unknown as { tools: Tool[] }).tools;
