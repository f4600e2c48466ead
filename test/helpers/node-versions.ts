/**
 * Node binaries of several major versions, for tests that must hold on Node 20, 22 and 24: this
 * process's own when its major matches, else one from the npm registry (the package
 * node-<platform>-<arch>@<major>, installed the way scripts/pack-smoke.mjs does) kept in
 * node_modules/.cache/agent-tty-node between runs. AGENT_TTY_TEST_NODE_FETCH=0 uses only what
 * is there already. A version that cannot be had is a skip reason, never a failure.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './paths.js';

export type NodeBinary =
  | { readonly bin: string; readonly version: string }
  | { readonly skip: string };

const CACHE = join(ROOT, 'node_modules', '.cache', 'agent-tty-node');

interface RegistryNode {
  installRegistryNode(major: number, dir: string): { bin: string; version: string };
}

/** The Node binary of `major`, or why there is none here. */
export async function nodeBinary(major: number): Promise<NodeBinary> {
  if (process.versions.node.split('.')[0] === String(major)) {
    return { bin: process.execPath, version: process.version };
  }
  const dir = join(CACHE, String(major));
  const cached = join(
    dir,
    'node_modules',
    `node-${process.platform}-${process.arch}`,
    'bin',
    'node',
  );
  const version = existsSync(cached) ? versionOf(cached) : undefined;
  if (version?.startsWith(`v${major}.`)) return { bin: cached, version };
  if (process.env.AGENT_TTY_TEST_NODE_FETCH === '0') {
    return { skip: `Node ${major} is not in ${CACHE} and AGENT_TTY_TEST_NODE_FETCH=0` };
  }
  try {
    const script = pathToFileURL(join(ROOT, 'scripts', 'smoke', 'registry-node.mjs')).href;
    const registry = (await import(script)) as RegistryNode;
    return registry.installRegistryNode(major, dir);
  } catch (err) {
    return {
      skip: `Node ${major} could not be installed: ${(err as Error).message.split('\n')[0]}`,
    };
  }
}

function versionOf(bin: string): string | undefined {
  try {
    return execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}
