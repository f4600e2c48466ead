/**
 * The programs tests run: whether one is installed, the python3 interpreter itself, and the
 * command line of a fixture program.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FIXTURES } from './paths.js';

/** The full path of `program` on PATH, or undefined: tests skip with a reason when it is missing. */
export function which(program: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const full = resolve(dir || '.', program);
    if (existsSync(full)) return full;
  }
  return undefined;
}

let interpreter: string | undefined;

/**
 * The interpreter itself: version-manager shims wrap it in a shell that dies of Ctrl+C. Asked
 * once per test process: through a shim the question takes 0.3 s, and seconds on a busy machine.
 */
export function python(): string {
  interpreter ??= execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], {
    encoding: 'utf8',
  }).trim();
  return interpreter;
}

/** A node:test `skip` value: false when python3 is installed, else the reason. */
export const needsPython = which('python3') ? false : 'python3 is not installed';

/** The command line that runs test/fixtures/<file> with `args` (each single-quoted). */
export function fixtureCommand(file: string, ...args: string[]): string {
  const quoted = [join(FIXTURES, file), ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`);
  return `${python()} ${quoted.join(' ')}`;
}
