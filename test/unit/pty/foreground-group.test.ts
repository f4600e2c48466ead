/**
 * Who is in a terminal's foreground process group, read from /proc for real programs in a PTY:
 * a shell's pipeline, an interactive shell's job, a group too large to judge.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  childrenOf,
  foregroundGroup,
  leaderInForeground,
  leaderOrCopyInForeground,
  MAX_PROCESSES,
} from '../../../src/pty/foreground-group.js';
import { scanProcSync } from '../../../src/pty/processes.js';
import type { PtyHandle } from '../../../src/pty/pty-handle.js';
import { spawnPty } from '../../../src/pty/spawn.js';
import { linuxOnly } from '../../helpers/processes.js';
import { waitUntil } from '../../helpers/wait.js';

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

const pids = (group: { pid: number }[]) => group.map((m) => m.pid).sort((a, b) => a - b);

describe('foregroundGroup', { skip: linuxOnly }, () => {
  it("holds a shell's pipeline: the shell and its children, each with state and CPU time", async () => {
    const pty = start('/bin/sh', ['-c', 'sleep 30 | cat']);
    try {
      await waitUntil(() => childrenOf(pty.pid).length === 2, 'sh starts sleep and cat');
      const group = foregroundGroup(pty.pid);
      assert.deepEqual(
        pids(group),
        pids([{ pid: pty.pid }, ...childrenOf(pty.pid).map((pid) => ({ pid }))]),
      );
      for (const member of group) {
        assert.match(member.state, /^[RSD]$/);
        assert.ok(Number.isInteger(member.cpuTicks) && member.cpuTicks >= 0);
      }
      assert.deepEqual(pids(leaderInForeground(pty.pid)), [pty.pid], 'sh is in the foreground');
    } finally {
      stop(pty);
    }
  });

  it("holds an interactive shell's job, not the shell, while the job runs", async () => {
    const pty = start('/bin/bash', ['--norc', '--noprofile', '-i']);
    try {
      await waitUntil(() => leaderInForeground(pty.pid).length === 1, 'bash at its prompt');
      assert.deepEqual(pids(foregroundGroup(pty.pid)), [pty.pid]);
      pty.write(Buffer.from('sleep 30\r'));
      await waitUntil(() => childrenOf(pty.pid).length === 1, 'bash starts sleep');
      const [job] = childrenOf(pty.pid);
      await waitUntil(() => pids(foregroundGroup(pty.pid)).join() === `${job}`, 'the job in front');
      assert.deepEqual(leaderInForeground(pty.pid), [], 'bash waits behind its job');
    } finally {
      stop(pty);
    }
  });

  it("tells the shell, or a copy it forked, in front from a command's program", async () => {
    const pty = start('/bin/bash', ['--norc', '--noprofile', '-i']);
    try {
      await waitUntil(() => leaderInForeground(pty.pid).length === 1, 'bash at its prompt');
      assert.equal(leaderOrCopyInForeground(pty.pid), true, 'the shell itself');
      // A subshell is a copy of bash in a group of its own, as a command is before it runs.
      pty.write(Buffer.from('( read x )\r'));
      await waitUntil(() => childrenOf(pty.pid).length === 1, 'bash forks the subshell');
      const [copy] = childrenOf(pty.pid);
      await waitUntil(() => pids(foregroundGroup(pty.pid)).join() === `${copy}`, 'it is in front');
      assert.equal(leaderOrCopyInForeground(pty.pid), true, 'a copy of the shell');
      pty.write(Buffer.from('\rsleep 30\r'));
      const comm = (pid?: number) => {
        try {
          return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
        } catch {
          return undefined;
        }
      };
      await waitUntil(() => comm(childrenOf(pty.pid)[0]) === 'sleep', 'sleep runs');
      await waitUntil(() => !leaderInForeground(pty.pid).length, 'sleep in front');
      assert.equal(leaderOrCopyInForeground(pty.pid), false, "a command's program");
    } finally {
      stop(pty);
    }
  });

  it(`judges no group of ${MAX_PROCESSES} processes or more`, async () => {
    const count = MAX_PROCESSES + 4;
    const pty = start('/bin/sh', [
      '-c',
      `i=0; while [ $i -lt ${count} ]; do sleep 30 & i=$((i+1)); done; wait`,
    ]);
    try {
      await waitUntil(() => childrenOf(pty.pid).length === count, `sh starts ${count} sleeps`);
      assert.deepEqual(foregroundGroup(pty.pid), []);
    } finally {
      stop(pty);
    }
  });

  it('is empty for a process that is gone or has no terminal', async () => {
    assert.deepEqual(foregroundGroup(4_194_305), []);
    assert.deepEqual(leaderInForeground(4_194_305), []);
    const detached = spawn('setsid', ['sleep', '30'], { stdio: 'ignore' });
    try {
      await waitUntil(
        () => childrenOf(process.pid).includes(detached.pid as number),
        'setsid runs',
      );
      assert.deepEqual(foregroundGroup(detached.pid as number), []);
      assert.deepEqual(leaderInForeground(detached.pid as number), []);
    } finally {
      detached.kill('SIGKILL');
    }
  });
});

describe('childrenOf', { skip: linuxOnly }, () => {
  it("lists the children of the process's main thread", async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await waitUntil(
        () => childrenOf(process.pid).includes(child.pid as number),
        'the child listed',
      );
    } finally {
      child.kill('SIGKILL');
    }
    assert.deepEqual(childrenOf(4_194_305), []);
  });
});
