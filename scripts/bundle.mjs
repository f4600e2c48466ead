#!/usr/bin/env node
// Bundles the server into dist/: one small entry chunk that answers initialize and tools/list,
// and a chunk loaded with the first terminal (emulator, PTY). Bundling makes start-up several
// times cheaper than resolving hundreds of module files. node-pty stays external (native code).
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: { main: 'src/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['node-pty'],
  chunkNames: 'chunks/[name]-[hash]',
  minify: true,
  sourcemap: 'linked',
  legalComments: 'linked',
  // CommonJS dependencies (@xterm/headless) call require(); give the ESM bundle one.
  banner: {
    js: "import { createRequire as __agentTtyRequire } from 'node:module'; const require = __agentTtyRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
