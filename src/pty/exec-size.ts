/**
 * What Linux lets one exec pass (fs/exec.c): no single argument or environment entry of 32 pages
 * or more, and all of them together, as the kernel counts them, within a quarter of the stack
 * limit (at most 6 MiB, at least 128 KiB). Checked before forking: a forked child that fails exec
 * only prints "Argument list too long" to its terminal and exits. Other systems are not checked
 * (the child's own message reports it there). @see spec/guarantees.md (Bounds)
 */
import { readFileSync } from 'node:fs';
import { endianness } from 'node:os';
import { TerminalError } from '../shared/errors.js';

/** The kernel's floor for the total (ARG_MAX in linux/limits.h). */
const ARG_MAX_BYTES = 128 * 1024;
/** The kernel's ceiling for the total: three quarters of _STK_LIM (8 MiB). */
const STACK_CAP_BYTES = 6 * 1024 * 1024;
/**
 * Room kept below the kernel's total for what the shell adds to the environment before it
 * starts the command (`_`, SHLVL, OLDPWD, LOGNAME, what login files export: 20 to 60 bytes
 * for bash, zsh and fish as measured), so that the command's own exec fits when the shell's does.
 */
export const EXEC_MARGIN_BYTES = 4096;
/** How many of the largest environment variables the message names. */
const NAMED_VARIABLES = 3;

const FIX_LONG =
  'write it to a file and run that, or type it into an interactive session with terminal_input';

/** What is exec'd: the path the kernel is given, the argument vector (argv[0] first), the env. */
export interface ExecRequest {
  readonly path: string;
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/**
 * Throws SPAWN_FAILED, naming what to shrink, when Linux would refuse the exec with E2BIG; `file`
 * and `cwd` go into the error's details.
 */
export function checkExecSize(request: ExecRequest, file: string, cwd: string): void {
  if (process.platform !== 'linux') return;
  checkEntrySizes(request, file, cwd);
  const stack = stackLimitBytes();
  const limit = execLimitBytes(stack);
  const allowed = limit - EXEC_MARGIN_BYTES;
  const bytes = execBytes(request, pointerBytes());
  if (bytes <= allowed) return;
  const largest = Object.entries(request.env)
    .map(([name, value]) => ({ name, bytes: entryBytes(name, value) - 1 }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, NAMED_VARIABLES);
  const named = largest.map((v) => `${v.name} (${v.bytes} bytes)`).join(', ');
  const stackText = stack === Number.POSITIVE_INFINITY ? 'unlimited' : `${stack} bytes`;
  throw new TerminalError(
    'SPAWN_FAILED',
    `the command's arguments and environment take ${bytes} bytes in exec as Linux counts them (each string with its NUL, plus a pointer each), and at most ${allowed} can be passed (E2BIG: Linux takes ${limit} here, a quarter of the stack limit (${stackText}) and at most 6 MiB, and ${EXEC_MARGIN_BYTES} are kept for what the shell adds): ${bytes - allowed} bytes too many; shorten or drop env variables (the largest: ${named}), remove inherited ones with unsetEnv, or shorten the command`,
    { file, cwd, execBytes: bytes, limitBytes: allowed },
  );
}

/**
 * Bytes the kernel counts for an exec: the path with its NUL, each argument and environment
 * entry (NAME=value) with its NUL, and a pointer for each argument (at least one) and entry.
 */
export function execBytes(request: ExecRequest, pointer: number): number {
  let bytes = Buffer.byteLength(request.path) + 1;
  for (const arg of request.argv) bytes += Buffer.byteLength(arg) + 1;
  let entries = 0;
  for (const [name, value] of Object.entries(request.env)) {
    bytes += entryBytes(name, value);
    entries += 1;
  }
  return bytes + (Math.max(request.argv.length, 1) + entries) * pointer;
}

/** The kernel's limit for an exec's total under a stack limit of `stackBytes`. */
export function execLimitBytes(stackBytes: number): number {
  return Math.max(Math.min(STACK_CAP_BYTES, Math.floor(stackBytes / 4)), ARG_MAX_BYTES);
}

/** NAME=value with its terminating NUL. */
function entryBytes(name: string, value: string): number {
  return Buffer.byteLength(name) + 1 + Buffer.byteLength(value) + 1;
}

function pointerBytes(): number {
  return process.arch === 'arm' || process.arch === 'ia32' ? 4 : 8;
}

/**
 * The soft stack limit (RLIMIT_STACK) a forked child inherits from this process, from
 * /proc/self/limits; 8 MiB, the usual default, if unreadable.
 */
export function stackLimitBytes(): number {
  try {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    const soft = /^Max stack size\s+(\S+)/m.exec(limits)?.[1];
    if (soft === 'unlimited') return Number.POSITIVE_INFINITY;
    const bytes = Number(soft);
    if (Number.isSafeInteger(bytes) && bytes > 0) return bytes;
  } catch {
    // Not readable: the usual default.
  }
  return 8 * 1024 * 1024;
}

/**
 * Linux refuses to exec (E2BIG, "Argument list too long") when one argument or one environment
 * entry (NAME=value) has MAX_ARG_STRLEN bytes or more with its terminating NUL: 32 pages, 128 KiB
 * with 4 KiB pages. The command is one argument (`shell -c COMMAND`).
 */
function checkEntrySizes(request: ExecRequest, file: string, cwd: string): void {
  const max = 32 * pageSize() - 1;
  for (const arg of request.argv) {
    const bytes = Buffer.byteLength(arg);
    if (bytes > max) {
      throw spawnFailed(
        `the command is ${bytes} bytes, and Linux passes at most ${max} in one argument (E2BIG); ${FIX_LONG}`,
        file,
        cwd,
      );
    }
  }
  for (const [name, value] of Object.entries(request.env)) {
    const bytes = entryBytes(name, value) - 1;
    if (bytes > max) {
      throw spawnFailed(
        `the environment variable ${name} is ${bytes} bytes with its name, and Linux passes at most ${max} in one (E2BIG); pass a shorter env value, or ${FIX_LONG}`,
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
    const word = pointerBytes();
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

function spawnFailed(message: string, file: string, cwd: string) {
  return new TerminalError('SPAWN_FAILED', message, { file, cwd });
}
