#!/usr/bin/env node
// Runs every compiled *.test.js under build/test with node:test, one file at a time (end-to-end
// tests drive real programs and measure nothing, but share the machine). Node 20's directory
// discovery would also run helpers, so the files are listed explicitly.
// Usage: node scripts/run-tests.mjs [layer ...]   (layers: unit property integration e2e)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const layers = process.argv.slice(2);
const roots = (layers.length ? layers : ['unit', 'property', 'integration', 'e2e']).map((l) =>
  join('build', 'test', l),
);

function collect(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) return collect(full);
      return entry.name.endsWith('.test.js') ? [full] : [];
    })
    .sort();
}

const files = roots.flatMap(collect);
if (files.length === 0) {
  console.error('no test files found: run npm run build:test first');
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=1', ...files], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
