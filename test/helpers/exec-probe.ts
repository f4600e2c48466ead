/**
 * Environments of an exact exec size, and, run as a program, a probe of the kernel's limit for
 * an exec's arguments and environment as a whole under this process's stack limit: it execs
 * /bin/true at the limit execLimitBytes gives and one byte over, and prints what each did.
 */
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { execBytes, execLimitBytes, stackLimitBytes } from '../../src/pty/exec-size.js';

/** Below Linux's 128 KiB for one entry. */
const VALUE_BYTES = 100_000;
/** A variable's bytes besides its value: a 5-byte name, "=", the NUL and the pointer. */
const ENTRY_OVERHEAD = 5 + 2 + 8;

/**
 * An environment that makes an exec of `path` with argv [path] exactly `bytes` as execBytes
 * counts (64-bit): variables V0000, V0001… of 100 000 bytes, the last one shorter.
 */
export function envOfBytes(bytes: number, path: string): Record<string, string> {
  const rest = bytes - execBytes({ path, argv: [path], env: {} }, 8);
  const count = Math.max(1, Math.ceil(rest / (VALUE_BYTES + ENTRY_OVERHEAD)));
  let values = rest - count * ENTRY_OVERHEAD;
  if (values < 0) throw new Error(`${bytes} bytes leave too little for one variable`);
  const env: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const length = Math.min(VALUE_BYTES, values);
    env[`V${String(i).padStart(4, '0')}`] = 'x'.repeat(length);
    values -= length;
  }
  return env;
}

/** What an exec of /bin/true with an environment of `bytes` did: "ok" or the errno's code. */
function execTrue(bytes: number): string {
  const result = spawnSync('/bin/true', [], { env: envOfBytes(bytes, '/bin/true') });
  return result.error ? ((result.error as NodeJS.ErrnoException).code ?? 'error') : 'ok';
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const limit = execLimitBytes(stackLimitBytes());
  const seen = { limit, atLimit: execTrue(limit), over: execTrue(limit + 1) };
  process.stdout.write(`${JSON.stringify(seen)}\n`);
}
