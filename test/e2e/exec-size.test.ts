/**
 * An environment too large for Linux to exec as a whole is SPAWN_FAILED before anything starts,
 * naming what to shrink; at the limit the server gives (the kernel's, less a margin for what the
 * shell adds) the session starts and its shell can still exec programs. The server's own
 * variables (TERM, PWD, HISTFILE…) count. Contract: spec/guarantees.md (Bounds), spec/errors.md.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { childPids, linuxOnly } from '../helpers/processes.js';
import { type Harness, startServer } from '../helpers/server.js';

/** Below Linux's 128 KiB for one entry. */
const VALUE_BYTES = 100_000;
const POINTER_BYTES = 8;

/** `count` variables of VALUE_BYTES each. */
function bigEnv(count: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (let i = 0; i < count; i++) env[`BIG${String(i).padStart(2, '0')}`] = 'x'.repeat(VALUE_BYTES);
  return env;
}

/** Bytes one entry takes in exec as Linux counts them: NAME=value, its NUL and its pointer. */
function entryBytes(name: string, value: string): number {
  return name.length + 1 + value.length + 1 + POINTER_BYTES;
}

/** `env` made exactly `bytes` smaller as exec counts it: whole variables, then part of one. */
function shrinkBy(env: Record<string, string>, bytes: number): Record<string, string> {
  const out = { ...env };
  let left = bytes;
  for (const name of Object.keys(out).reverse()) {
    const value = out[name] as string;
    if (left === 0) break;
    if (left >= entryBytes(name, value) || left > value.length) {
      delete out[name];
      left -= entryBytes(name, value);
      continue;
    }
    out[name] = value.slice(left);
    left = 0;
  }
  // A whole variable too many was dropped: give the difference back to one that is left.
  if (left < 0) {
    const name = Object.keys(out)[0] as string;
    out[name] = `${out[name]}${'x'.repeat(-left)}`;
  }
  return out;
}

describe('exec size', { skip: linuxOnly }, () => {
  let harness: Harness;
  let tmp: string;
  before(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'agent-tty-exec-size-'));
    harness = await startServer({ args: ['--no-attach'], env: { TMPDIR: tmp } });
  });
  after(async () => {
    await harness.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  const start = (env: Record<string, string>) =>
    harness.call('terminal_start', {
      shell: '/bin/bash',
      login: false,
      // Both are programs the shell execs with the same environment.
      command: '/usr/bin/env | /usr/bin/wc -c; /bin/true && echo EXEC-OK',
      env,
      waitForExit: true,
      autoClose: true,
    });

  it('too large as a whole: SPAWN_FAILED before anything starts; at the limit it runs', async () => {
    const children = childPids(harness.pid);
    const env = bigEnv(24);
    const over = await start(env);
    assert.equal(over.isError, true, over.text);
    assert.equal(over.data.error?.code, 'SPAWN_FAILED', over.text);
    const { execBytes, limitBytes } = (over.data.error?.details ?? {}) as {
      execBytes: number;
      limitBytes: number;
    };
    assert.ok(execBytes > limitBytes, `${execBytes} > ${limitBytes}`);
    assert.match(over.text, /E2BIG/);
    assert.match(over.text, /the largest: BIG\d\d \(100006 bytes\)/, 'names what to shrink');
    assert.match(over.text, /unsetEnv/);
    assert.deepEqual(childPids(harness.pid), children, 'no process started');
    assert.deepEqual(readdirSync(tmp), [], 'no private directory is left');
    assert.deepEqual((await harness.call('terminal_list')).data.sessions, [], 'no session');

    const oneOver = await start(shrinkBy(env, execBytes - limitBytes - 1));
    assert.equal(oneOver.data.error?.code, 'SPAWN_FAILED', 'one byte over the limit');
    assert.equal(oneOver.data.error?.details.execBytes, limitBytes + 1);
    assert.deepEqual(childPids(harness.pid), children, 'no process started');

    const atLimit = await start(shrinkBy(env, execBytes - limitBytes));
    assert.equal(atLimit.isError, false, atLimit.text);
    const screen = atLimit.data.snapshot?.screen.join('\n') ?? '';
    assert.match(screen, /EXEC-OK/, 'the shell execs programs with that environment');
    assert.equal(atLimit.data.snapshot?.exitCode, 0, screen);
  });
});
