#!/usr/bin/env node
// Bundles the server into dist/: one small entry chunk that answers initialize and tools/list,
// and a chunk loaded with the first terminal (emulator, PTY). Bundling makes start-up several
// times cheaper than resolving hundreds of module files. node-pty stays external (native code):
// it is the package's one runtime dependency; everything else is bundled and is a devDependency.
//
// `--release` (prepack: npm pack and npm publish) leaves the source maps out, and package.json
// "files" excludes any. They are 3.7 MB beside 1 MB of code, and nothing installed reads them:
// Node uses a map only under --enable-source-maps, and errors reach the agent as messages, not
// stacks. A clone's `npm run build` keeps them (linked) for whoever debugs the bundle.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

const release = process.argv.includes('--release');

// The SDK's Server validates elicitation answers with Ajv, which agent-tty never asks for; it gets
// a validator of its own (src/server.ts), so the Ajv provider is left out of the bundle: 130 KB
// less to load at every start.
const withoutAjv = {
  name: 'without-ajv',
  setup(b) {
    b.onResolve({ filter: /validation\/ajv-provider\.js$/ }, () => ({
      path: 'ajv-provider',
      namespace: 'stub',
    }));
    b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
      contents:
        "export class AjvJsonSchemaValidator { constructor() { throw new Error('agent-tty bundles no Ajv; pass a jsonSchemaValidator'); } }",
      loader: 'js',
    }));
  },
};

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
  sourcemap: release ? false : 'linked',
  legalComments: 'linked',
  // CommonJS dependencies (@xterm/headless) call require(); give the ESM bundle one.
  banner: {
    js: "import { createRequire as __agentTtyRequire } from 'node:module'; const require = __agentTtyRequire(import.meta.url);",
  },
  logLevel: 'warning',
  plugins: [withoutAjv],
});
