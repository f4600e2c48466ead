#!/usr/bin/env node
// Writes spec/tools.schema.json: the tools/list result, generated from the zod schemas of
// src/tools, src/shared/contract and src/input (compiled to build/ by `npm run build:test`). The server
// serves this file's schemas, and a test fails when it drifts from the zod ones. Usage: npm run spec
import { writeFileSync } from 'node:fs';

const { generateToolList } = await import('../build/src/tools/tool-list.js');
const tools = generateToolList();
const text = `${JSON.stringify({ tools }, null, 2)}\n`;
writeFileSync(new URL('../spec/tools.schema.json', import.meta.url), text);
console.log(`spec/tools.schema.json: ${tools.length} tools, ${text.length} bytes`);
