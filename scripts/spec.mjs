#!/usr/bin/env node
// Writes spec/tools.schema.json: the tools/list result, generated from the zod schemas in
// src/tools (compiled to build/ by `npm run build:test`). The server ships this file, and a test
// fails when it drifts from the schemas. Usage: npm run spec
import { writeFileSync } from 'node:fs';

const { listTools } = await import('../build/src/tools/index.js');
const text = `${JSON.stringify({ tools: listTools() }, null, 2)}\n`;
writeFileSync(new URL('../spec/tools.schema.json', import.meta.url), text);
console.log(`spec/tools.schema.json: ${listTools().length} tools, ${text.length} bytes`);
