/**
 * Checks, before forking, that a program can be started: the working directory exists, the
 * executable is found and runnable, and (on Linux) no argument or environment entry is too long
 * to pass. A forked child that fails exec only prints to its terminal, so these checks are what
 * turn a typo into a clear SPAWN_FAILED error.
 */
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { endianness } from 'node:os';
import { delimiter, join } from 'node:path';
import { TerminalError } from '../errors.js';

export function checkSpawnable(
  file: string,
  args: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string>>,
): void {
  checkEntrySizes(args, env, file, cwd);
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
  if (resolveExecutable(file, env.PATH ?? '', cwd) === undefined) {
    throw spawnFailed(
      file.includes('/')
        ? `"${file}" is not an executable file; check the shell path`
        : `"${file}" was not found on PATH; pass an absolute shell path`,
      file,
      cwd,
    );
  }
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

/**
 * Linux refuses to exec (E2BIG, "Argument list too long") when one argument or one environment
 * entry (NAME=value) has MAX_ARG_STRLEN bytes or more with its terminating NUL: 32 pages, 128 KiB
 * with 4 KiB pages. The command is one argument (`shell -c COMMAND`). Other systems have no
 * per-entry limit, only the total, which the forked child's own message reports.
 */
function checkEntrySizes(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  file: string,
  cwd: string,
): void {
  if (process.platform !== 'linux') return;
  const max = 32 * pageSize() - 1;
  const fix =
    'write it to a file and run that, or type it into an interactive session with terminal_input';
  for (const arg of args) {
    const bytes = Buffer.byteLength(arg);
    if (bytes > max) {
      throw spawnFailed(
        `the command is ${bytes} bytes, and Linux passes at most ${max} in one argument (E2BIG); ${fix}`,
        file,
        cwd,
      );
    }
  }
  for (const [name, value] of Object.entries(env)) {
    const bytes = Buffer.byteLength(name) + 1 + Buffer.byteLength(value);
    if (bytes > max) {
      throw spawnFailed(
        `the environment variable ${name} is ${bytes} bytes with its name, and Linux passes at most ${max} in one (E2BIG); pass a shorter env value, or ${fix}`,
        file,
        cwd,
      );
    }
  }
}

let cachedPageSize: number | undefined;

/** The system's page size, from the process's auxiliary vector (AT_PAGESZ); 4096 if unreadable. */
function pageSize(): number {
  if (cachedPageSize !== undefined) return cachedPageSize;
  cachedPageSize = 4096;
  try {
    const auxv = readFileSync('/proc/self/auxv');
    const word = process.arch === 'arm' || process.arch === 'ia32' ? 4 : 8;
    const read = (at: number): number => {
      if (word === 4) return endianness() === 'LE' ? auxv.readUInt32LE(at) : auxv.readUInt32BE(at);
      return Number(endianness() === 'LE' ? auxv.readBigUInt64LE(at) : auxv.readBigUInt64BE(at));
    };
    // Pairs of words (type, value), ended by type 0 (AT_NULL); AT_PAGESZ is 6.
    for (let at = 0; at + 2 * word <= auxv.length; at += 2 * word) {
      const type = read(at);
      if (type === 0) break;
      if (type === 6) {
        const value = read(at + word);
        if (value >= 4096 && (value & (value - 1)) === 0) cachedPageSize = value;
        break;
      }
    }
  } catch {
    // Not readable: the common page size.
  }
  return cachedPageSize;
}

function spawnFailed(message: string, file: string, cwd: string, cause?: unknown) {
  return new TerminalError('SPAWN_FAILED', message, { file, cwd }, cause ? { cause } : undefined);
}
