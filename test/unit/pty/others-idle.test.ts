/**
 * Whether the rest of a terminal's session could print, for real shells in a PTY: a background
 * job can, a stopped one cannot, the shell waiting for its foreground job cannot, and an orphan
 * of the foreground group (whose process tree nobody judged) can.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { childrenOf } from '../../../src/pty/foreground-group.js';
import { othersIdle } from '../../../src/pty/others-idle.js';
import { scanProcSync } from '../../../src/pty/processes.js';
import type { PtyHandle } from '../../../src/pty/pty-handle.js';
import { spawnPty } from '../../../src/pty/spawn.js';
import { linuxOnly } from '../../helpers/processes.js';
import { sleep, waitUntil } from '../../helpers/wait.js';

function start(file: string, args: string[]): PtyHandle {
  return spawnPty(
    {
      file,
      args,
      cwd: '/',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      cols: 80,
      rows: 24,
    },
    { onData: () => undefined, onExit: () => undefined },
  );
}

function stop(pty: PtyHandle): void {
  for (const { pid } of scanProcSync(pty.pid).procs) process.kill(pid, 'SIGKILL');
  pty.dispose();
}

describe('othersIdle', { skip: linuxOnly }, () => {
  it('a background job can print, a stopped one cannot, the shell of the foreground job cannot', async () => {
    const pty = start('/bin/bash', ['--norc', '--noprofile', '-i']);
    const idle = () => othersIdle(pty.pid);
    try {
      await waitUntil(idle, 'bash alone');
      pty.write(Buffer.from('sleep 30 &\r'));
      await waitUntil(() => !idle(), 'a sleeping background job');
      pty.write(Buffer.from('kill -STOP %1\r'));
      await waitUntil(idle, 'the job stopped');
      pty.write(Buffer.from('sleep 31\r'));
      await waitUntil(() => childrenOf(pty.pid).length === 2, 'the foreground job runs');
      await sleep(100);
      assert.equal(idle(), true, 'bash waits for its foreground job');
    } finally {
      stop(pty);
    }
  });

  it('an orphan of the foreground group can print', async () => {
    // The subshell starts sleep and exits: sleep stays in the group, outside the shell's tree.
    const pty = start('/bin/sh', ['-c', '(sleep 30 &); read x']);
    try {
      await waitUntil(() => scanProcSync(pty.pid).procs.length === 2, 'sh and the orphan');
      await sleep(100);
      assert.equal(othersIdle(pty.pid), false);
    } finally {
      stop(pty);
    }
  });

  it('is false without a session to read', () => {
    assert.equal(othersIdle(4_194_305), false);
  });
});
