/**
 * Starting a program in a PTY, and the only import of node-pty: loads the native module on first
 * use, checks that the program can start, spawns it with none of the server's descriptors, and
 * hands the terminal to node-pty-handle.ts. The PTY's interface is pty-handle.ts.
 */
import { createRequire } from 'node:module';
import type * as nodePty from 'node-pty';
import { TerminalError } from '../shared/errors.js';
import { spawnAboveOpenDescriptors } from './descriptor-gaps.js';
import { NodePtyHandle } from './node-pty-handle.js';
import type { PtyEvents, PtyHandle, SpawnOptions } from './pty-handle.js';
import { ptyUnavailableError } from './pty-unavailable.js';
import { ensureSpawnHelper } from './spawn-helper.js';
import { checkSpawnable } from './spawnable.js';

/**
 * node-pty, loaded on first use rather than imported: a missing or foreign native module then
 * fails the call that needs it (SPAWN_FAILED naming the fix), never the module graph it sits in,
 * and a later call tries again (a failed require is not cached), so a rebuilt install works
 * without a restart.
 */
let loadedPty: typeof nodePty | undefined;
function nativePty(): typeof nodePty {
  if (loadedPty !== undefined) return loadedPty;
  const require = createRequire(import.meta.url);
  let loaded: typeof nodePty;
  try {
    loaded = require('node-pty') as typeof nodePty;
  } catch (err) {
    throw ptyUnavailableError(err);
  }
  if (typeof loaded.spawn !== 'function') {
    throw ptyUnavailableError(new Error('node-pty exports no spawn()'));
  }
  loadedPty = loaded;
  return loaded;
}

/**
 * Start-up check of the native module: loads node-pty; throws SPAWN_FAILED (with the fix) when it
 * cannot be loaded. Callers import this module lazily, which loads no emulator code.
 */
export function checkNativePty(): void {
  nativePty();
}

export function spawnPty(options: SpawnOptions, events: PtyEvents): PtyHandle {
  const name = options.env.TERM ?? 'xterm-256color';
  // The environment exactly as node-pty passes it to exec: it sets PWD and TERM itself.
  const env = { ...options.env, PWD: options.cwd, TERM: name };
  checkSpawnable(options.file, options.args, options.cwd, env);
  const native = nativePty();
  const helperProblem = ensureSpawnHelper();
  let pty: nodePty.IPty;
  try {
    // The program inherits none of the server's descriptors (see descriptor-gaps.ts).
    pty = spawnAboveOpenDescriptors(() =>
      native.spawn(options.file, [...options.args], {
        name,
        cols: options.cols,
        rows: options.rows,
        cwd: options.cwd,
        env,
        encoding: null,
      }),
    );
  } catch (err) {
    throw new TerminalError(
      'SPAWN_FAILED',
      `could not start "${options.file}" in "${options.cwd}": ${(err as Error).message}; ${helperProblem ?? 'check the shell and cwd (if every program fails so, run `agent-tty doctor` to check the install)'}`,
      { file: options.file, cwd: options.cwd },
      { cause: err },
    );
  }
  return new NodePtyHandle(pty, events, options);
}
