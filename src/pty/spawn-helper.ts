/**
 * macOS: node-pty starts programs through a small `spawn-helper` executable, and node-pty 1.1.0
 * publishes it without its execute bit (microsoft/node-pty#850), so every spawn would fail with
 * "posix_spawnp failed". Before the first spawn, restore the bit on the helper next to the native
 * module node-pty loads; when that is not permitted, say exactly what to run.
 */
import { accessSync, chmodSync, constants, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

let checked = false;
let problem: string | undefined;

/** On macOS, makes node-pty's spawn-helper executable once; returns a hint when it cannot. */
export function ensureSpawnHelper(
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (platform !== 'darwin' || checked) return problem;
  checked = true;
  let root: string;
  try {
    root = dirname(createRequire(import.meta.url).resolve('node-pty/package.json'));
  } catch {
    return undefined;
  }
  problem = fixSpawnHelper(root, process.arch);
  return problem;
}

/** Makes the spawn-helper of the node-pty install at `root` executable; a hint when it cannot. */
export function fixSpawnHelper(root: string, arch: string): string | undefined {
  // The same order node-pty loads its native module in.
  for (const dir of ['build/Release', 'build/Debug', `prebuilds/darwin-${arch}`]) {
    if (!existsSync(join(root, dir, 'pty.node'))) continue;
    const helper = join(root, dir, 'spawn-helper');
    if (!existsSync(helper)) return undefined;
    try {
      accessSync(helper, constants.X_OK);
    } catch {
      try {
        chmodSync(helper, 0o755);
      } catch {
        return `node-pty's spawn-helper is not executable; run: chmod +x "${helper}"`;
      }
    }
    return undefined;
  }
  return undefined;
}
