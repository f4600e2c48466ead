/**
 * The exec size check against the kernel itself: Linux's limit for an exec's arguments and
 * environment as a whole, measured with real execs of /bin/true under several stack limits, lies
 * exactly where execLimitBytes puts it, counted the way execBytes counts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  checkExecSize,
  EXEC_MARGIN_BYTES,
  execBytes,
  execLimitBytes,
  stackLimitBytes,
} from '../../../src/pty/exec-size.js';
import { TerminalError } from '../../../src/shared/errors.js';
import { envOfBytes } from '../../helpers/exec-probe.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const linuxOnly = process.platform === 'linux' ? false : 'a Linux limit';
const PROBE = fileURLToPath(new URL('../../helpers/exec-probe.js', import.meta.url));

describe('exec size', () => {
  it('takes a quarter of the stack limit, at most 6 MiB and at least 128 KiB', () => {
    const rows: [number, number][] = [
      [8 * MiB, 2 * MiB],
      [4 * MiB, MiB],
      [256 * KiB, 128 * KiB],
      [64 * MiB, 6 * MiB],
      [Number.POSITIVE_INFINITY, 6 * MiB],
    ];
    for (const [stack, limit] of rows) assert.equal(execLimitBytes(stack), limit, `stack ${stack}`);
  });

  it('counts the path, each string with its NUL, and a pointer per string', () => {
    const request = { path: '/bin/sh', argv: ['sh', '-c', 'true'], env: { A: 'b', CD: '' } };
    // "/bin/sh\0" 8 + "sh\0-c\0true\0" 11 + "A=b\0CD=\0" 8, and 5 pointers.
    assert.equal(execBytes(request, 8), 8 + 11 + 8 + 5 * 8);
    assert.equal(
      execBytes({ ...request, argv: [] }, 4),
      8 + 8 + 3 * 4,
      'argv counts as one at least',
    );
  });

  it('refuses one byte over the limit less the margin, naming the largest variables', {
    skip: linuxOnly,
  }, () => {
    const allowed = execLimitBytes(stackLimitBytes()) - EXEC_MARGIN_BYTES;
    const request = {
      path: '/bin/true',
      argv: ['/bin/true'],
      env: envOfBytes(allowed, '/bin/true'),
    };
    assert.equal(execBytes(request, 8), allowed);
    assert.doesNotThrow(() => checkExecSize(request, '/bin/true', '/'));
    const over = { ...request, env: { ...request.env, X: '' } };
    assert.throws(
      () => checkExecSize(over, '/bin/true', '/'),
      (err: unknown) =>
        err instanceof TerminalError &&
        err.code === 'SPAWN_FAILED' &&
        err.details.execBytes === allowed + 11 &&
        err.details.limitBytes === allowed &&
        /the largest: V0000 \(\d+ bytes\)/.test(err.message),
    );
  });

  for (const stackKiB of ['inherited', 256, 4096, 65536] as const) {
    it(`matches a real exec at the limit and one byte over (stack: ${stackKiB})`, {
      skip: linuxOnly,
    }, () => {
      const ulimit = stackKiB === 'inherited' ? '' : `ulimit -s ${stackKiB} && `;
      const script = `${ulimit}exec "$0" "$1"`;
      const child = spawnSync('/bin/sh', ['-c', script, process.execPath, PROBE], {
        encoding: 'utf8',
      });
      assert.equal(child.status, 0, child.stderr);
      const seen = JSON.parse(child.stdout.trim().split('\n').at(-1) as string) as {
        limit: number;
        atLimit: string;
        over: string;
      };
      if (stackKiB !== 'inherited') assert.equal(seen.limit, execLimitBytes(stackKiB * KiB));
      assert.equal(seen.atLimit, 'ok', `exactly ${seen.limit} bytes exec`);
      assert.equal(seen.over, 'E2BIG', `${seen.limit + 1} bytes do not`);
    });
  }
});
