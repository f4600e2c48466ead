/**
 * Checks, before forking, that a program can be started: the working directory exists, the
 * executable is found and runnable, and (on Linux) the arguments and environment are not too
 * large to pass (exec-size.ts). A forked child that fails exec only prints to its terminal, so
 * these checks are what turn a typo into a clear SPAWN_FAILED error.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { TerminalError } from '../shared/errors.js';
import { checkExecSize } from './exec-size.js';

export function checkSpawnable(
  file: string,
  args: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string>>,
): void {
  let cwdStat: ReturnType<typeof statSync> | undefined;
  try {
    cwdStat = statSync(cwd);
  } catch (err) {
    throw spawnFailed(
      `working directory "${cwd}" does not exist; pass an existing cwd`,
      file,
      cwd,
      err,
    );
  }
  if (!cwdStat.isDirectory()) {
    throw spawnFailed(
      `working directory "${cwd}" is not a directory; pass a directory as cwd`,
      file,
      cwd,
    );
  }
  const path = resolveExecutable(file, env.PATH ?? '', cwd);
  if (path === undefined) {
    throw spawnFailed(
      file.includes('/')
        ? `"${file}" is not an executable file; check the shell path`
        : `"${file}" was not found on PATH; pass an absolute shell path`,
      file,
      cwd,
    );
  }
  // execvp gives the kernel the path it found and argv[0] as given.
  checkExecSize({ path, argv: [file, ...args], env }, file, cwd);
}

/** The executable `file` resolves to, the way execvp searches PATH, or undefined. */
export function resolveExecutable(file: string, path: string, cwd: string): string | undefined {
  if (file === '') return undefined;
  if (file.includes('/')) {
    const full = file.startsWith('/') ? file : join(cwd, file);
    return isExecutableFile(full) ? full : undefined;
  }
  for (const dir of path.split(delimiter)) {
    const full = join(dir === '' ? cwd : dir.startsWith('/') ? dir : join(cwd, dir), file);
    if (isExecutableFile(full)) return full;
  }
  return undefined;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function spawnFailed(message: string, file: string, cwd: string, cause?: unknown) {
  return new TerminalError('SPAWN_FAILED', message, { file, cwd }, cause ? { cause } : undefined);
}
