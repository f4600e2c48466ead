/**
 * The input-wait probe's reading of /proc syscall lines, with the terminal's descriptors and
 * the process's memory supplied by the test; and the probe against real programs on Linux.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  createInputWaitProbe,
  isTerminalWait,
  othersIdle,
  SYSCALLS,
  terminalWaitMs,
} from '../../../src/pty/input-wait.js';
import { scanProcSync } from '../../../src/pty/processes.js';
import { spawnPty } from '../../../src/pty/spawn.js';
import { python } from '../../helpers/programs.js';
import { sleep } from '../../helpers/wait.js';

const TTY = '/dev/pts/7';
const x64 = SYSCALLS.x64 as NonNullable<(typeof SYSCALLS)['x64']>;
const fds: Record<number, string> = { 0: TTY, 3: '/dev/tty', 4: 'pipe:[123]' };
const timespec = (s: number, ns: number) => {
  const buf = Buffer.alloc(16);
  buf.writeBigInt64LE(BigInt(s), 0);
  buf.writeBigInt64LE(BigInt(ns), 8);
  return buf;
};
const line = (nr: number, ...args: string[]) =>
  [nr, ...args, ...Array(6 - args.length).fill('0x0'), '0x7ffc', '0x7f00'].join(' ');

function context(options: { pollCounts?: boolean; memory?: Buffer } = {}) {
  return {
    pid: 42,
    ttyPath: TTY,
    syscalls: x64,
    pollCounts: options.pollCounts ?? true,
    fdTarget: (_pid: number, fd: number) => fds[fd],
    readMemory: () => options.memory,
  };
}

function waits(text: string, options: { pollCounts?: boolean; memory?: Buffer } = {}) {
  return isTerminalWait(text, context(options));
}

describe('isTerminalWait', () => {
  const rows: [string, string, boolean, { pollCounts?: boolean; memory?: Buffer }?][] = [
    ['read on the terminal', line(0, '0x0', '0x5581', '0x1'), true],
    ['read on /dev/tty', line(0, '0x3', '0x5581', '0x1'), true],
    ['read on a pipe', line(0, '0x4', '0x5581', '0x1'), false],
    ['poll with no timeout', line(7, '0x7ffd', '0x1', '0xffffffffffffffff'), true],
    ['poll with a 4 s timeout', line(7, '0x7ffd', '0x1', '0xfa0'), true],
    ['poll with an 80 ms timeout', line(7, '0x7ffd', '0x1', '0x50'), false],
    ['epoll_pwait with no timeout', line(281, '0x9', '0x7f', '0x400', '0xffffffff'), true],
    [
      'epoll_pwait on a helper thread',
      line(281, '0x9', '0x7f', '0x400', '0xffffffff'),
      false,
      { pollCounts: false },
    ],
    ['select with a NULL timeval', line(23, '0x1', '0x7ffd', '0x0', '0x0', '0x0'), true],
    [
      'pselect6 with a 10 s timespec',
      line(270, '0x1', '0x7ffd', '0x0', '0x0', '0x7ffd'),
      true,
      { memory: timespec(10, 0) },
    ],
    [
      'ppoll with a 50 ms timespec',
      line(271, '0x7ffd', '0x1', '0x7ffd'),
      false,
      { memory: timespec(0, 50_000_000) },
    ],
    ['ppoll whose timeout cannot be read', line(271, '0x7ffd', '0x1', '0x7ffd'), false],
    ['nanosleep', line(35, '0x7ffd', '0x0'), false],
    ['wait4', line(61, '0xffffffffffffffff', '0x7ffd'), false],
    ['running', 'running', false],
  ];
  for (const [name, text, expected, options] of rows) {
    it(`${name}: ${expected}`, () => assert.equal(waits(text, options), expected));
  }
});

describe('terminalWaitMs: how long a wait for input may last', () => {
  const inf = Number.POSITIVE_INFINITY;
  const rows: [string, string, number | undefined, { memory?: Buffer }?][] = [
    ['a read has no timeout', line(0, '0x0', '0x5581', '0x1'), inf],
    ['poll with no timeout', line(7, '0x7ffd', '0x1', '0xffffffffffffffff'), inf],
    ['poll with a 4 s timeout', line(7, '0x7ffd', '0x1', '0xfa0'), 4000],
    ['epoll_pwait with 7727 ms (npm init)', line(281, '0x9', '0x7f', '0x400', '0x1e2f'), 7727],
    [
      'pselect6 of bash read -t 5',
      line(270, '0x1', '0x7ffd', '0x0', '0x0', '0x7ffd'),
      4999.942,
      { memory: timespec(4, 999_942_000) },
    ],
    ['poll with an 80 ms timeout is no wait', line(7, '0x7ffd', '0x1', '0x50'), undefined],
    ['a read on a pipe is no wait', line(0, '0x4', '0x5581', '0x1'), undefined],
  ];
  for (const [name, text, expected, options] of rows) {
    it(`${name}: ${expected}`, () =>
      assert.equal(terminalWaitMs(text, context(options)), expected));
  }
});

describe('input-wait probe on real programs', {
  skip: process.platform !== 'linux' && 'Linux only',
}, () => {
  async function probeOf(file: string, args: string[]) {
    const pty = spawnPty(
      {
        file,
        args,
        cwd: '/',
        env: { ...(process.env as Record<string, string>), TERM: 'xterm-256color' },
        cols: 80,
        rows: 24,
      },
      { onData: () => undefined, onExit: () => undefined },
    );
    const probe = createInputWaitProbe(pty.pid, pty.ttyPath);
    assert.ok(probe);
    return { pty, probe };
  }

  async function eventually(check: () => boolean, ms = 3000) {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (check()) return true;
      await sleep(20);
    }
    return false;
  }

  it('sees a REPL waiting, and a sleeping command not waiting', async () => {
    const repl = await probeOf(python(), ['-q']);
    assert.ok(await eventually(() => repl.probe.isWaiting()), 'python waits at its prompt');
    const busy = await probeOf('/bin/sh', ['-c', 'sleep 5']);
    await sleep(300);
    assert.equal(busy.probe.isWaiting(), false);
    for (const { pty } of [repl, busy]) {
      process.kill(pty.pid, 'SIGKILL');
      pty.dispose();
    }
  });

  it('does not count a wait from before the input was read', async () => {
    const { pty, probe } = await probeOf('/bin/sh', ['-c', 'read x; sleep 5']);
    assert.ok(await eventually(() => probe.isWaiting()));
    probe.markInput();
    assert.equal(probe.isWaiting(), false, 'not yet run since the input');
    pty.write(Buffer.from('go\r'));
    await sleep(300);
    assert.equal(probe.isWaiting(), false, 'now sleeping, not reading');
    process.kill(pty.pid, 'SIGKILL');
    pty.dispose();
  });

  it('counts a wait after input that arrived while the program was running', async () => {
    // Input written while the program runs is read without it ever being scheduled out; it then
    // blocks for more. It has slept since the input, though it was never scheduled in again.
    const program = [
      'import sys, time',
      'print("busy", flush=True)',
      'end = time.time() + 0.6',
      'while time.time() < end: pass',
      'sys.stdin.readline()',
      'sys.stdin.readline()',
    ].join('\n');
    const { pty, probe } = await probeOf(python(), ['-c', program]);
    try {
      await sleep(300);
      probe.markInput();
      pty.write(Buffer.from('first\r'));
      assert.ok(await eventually(() => probe.isWaiting()), 'waits for the second line');
    } finally {
      process.kill(pty.pid, 'SIGKILL');
      pty.dispose();
    }
  });

  it('tells an untimed read from a read with a timeout', async () => {
    const untimed = await probeOf('/bin/bash', ['--norc', '--noprofile', '-c', 'read x']);
    const timed = await probeOf('/bin/bash', ['--norc', '--noprofile', '-c', 'read -t 3 x']);
    assert.ok(
      await eventually(() => untimed.probe.inputWait()?.waitMs === Number.POSITIVE_INFINITY),
    );
    assert.ok(await eventually(() => (timed.probe.inputWait()?.waitMs ?? 0) > 2000));
    assert.ok((timed.probe.inputWait()?.waitMs as number) <= 3000);
    for (const { pty } of [untimed, timed]) {
      process.kill(pty.pid, 'SIGKILL');
      pty.dispose();
    }
  });

  it("reports the foreground group's CPU time: still while it waits, growing while a thread works", async () => {
    const program = [
      'import threading, time',
      'def spin():',
      '    end = time.time() + 30',
      '    while time.time() < end: pass',
      'threading.Thread(target=spin, daemon=True).start()',
      'input()',
    ].join('\n');
    const idle = await probeOf(python(), ['-q']);
    const busy = await probeOf(python(), ['-c', program]);
    try {
      assert.ok(await eventually(() => idle.probe.isWaiting()));
      assert.ok(await eventually(() => busy.probe.isWaiting()), 'the main thread reads');
      const before = [idle.probe.inputWait()?.cpuMs ?? 0, busy.probe.inputWait()?.cpuMs ?? 0];
      await sleep(300);
      const after = [idle.probe.inputWait()?.cpuMs ?? 0, busy.probe.inputWait()?.cpuMs ?? 0];
      assert.ok((after[0] as number) - (before[0] as number) <= 10, `idle: ${before} → ${after}`);
      assert.ok((after[1] as number) - (before[1] as number) >= 100, `busy: ${before} → ${after}`);
    } finally {
      for (const { pty } of [idle, busy]) {
        process.kill(pty.pid, 'SIGKILL');
        pty.dispose();
      }
    }
  });

  it('othersIdle: a background job can print, a stopped one cannot, the shell of the job can', async () => {
    const shell = await probeOf('/bin/bash', ['--norc', '--noprofile', '-i']);
    const idle = () => othersIdle(shell.pty.pid);
    try {
      assert.ok(await eventually(() => shell.probe.isWaiting()), 'bash waits at its prompt');
      assert.equal(idle(), true, 'bash alone');
      shell.pty.write(Buffer.from('sleep 30 &\r'));
      assert.ok(await eventually(() => !idle()), 'a sleeping background job');
      shell.pty.write(Buffer.from('kill -STOP %1\r'));
      assert.ok(await eventually(idle), 'the job stopped');
      shell.pty.write(Buffer.from(`${python()} -q\r`));
      assert.ok(
        await eventually(() => shell.probe.isWaiting() && idle()),
        'bash waits for python, which reads',
      );
    } finally {
      for (const { pid } of scanProcSync(shell.pty.pid).procs) process.kill(pid, 'SIGKILL');
      shell.pty.dispose();
    }
  });
});
