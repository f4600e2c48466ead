/**
 * The input-wait probe's reading of /proc syscall lines, with the terminal's descriptors and
 * the process's memory supplied by the test; and the probe against real programs on Linux.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  classifyThreadWait,
  createInputWaitProbe,
  type GroupMember,
  judgeGroup,
  othersIdle,
  type ProcReader,
  SYSCALLS,
  type ThreadWait,
} from '../../../src/pty/input-wait.js';
import { scanProcSync } from '../../../src/pty/processes.js';
import { spawnPty } from '../../../src/pty/spawn.js';
import { WakeSources } from '../../../src/pty/wake-sources.js';
import { python } from '../../helpers/programs.js';
import { sleep } from '../../helpers/wait.js';

const TTY = '/dev/pts/7';
const x64 = SYSCALLS.x64 as NonNullable<(typeof SYSCALLS)['x64']>;
const inf = Number.POSITIVE_INFINITY;

/** A process as the test describes it: its descriptors, fdinfo texts, memory, threads. */
interface FakeProcess {
  fds: Record<number, string>;
  info?: Record<number, string>;
  fifos?: number[];
  memory?: Record<string, Buffer>;
  threads?: Record<number, string | 'denied'>;
}

function fakeReader(procs: Record<number, FakeProcess>, unix: number[] = []): ProcReader {
  const proc = (pid: number) => procs[pid] as FakeProcess;
  return {
    syscall: (pid, tid) => proc(pid)?.threads?.[tid],
    threads: (pid) => Object.keys(proc(pid)?.threads ?? {}).map(Number),
    readMemory: (pid, address) => proc(pid)?.memory?.[address.toString(16)],
    fdTarget: (pid, fd) => proc(pid)?.fds[fd],
    fdTargets: (pid) =>
      new Map(Object.entries(proc(pid)?.fds ?? {}).map(([k, v]) => [Number(k), v])),
    fdInfo: (pid, fd) => proc(pid)?.info?.[fd],
    isFifo: (pid, fd) => proc(pid)?.fifos?.includes(fd) ?? false,
    unixSockets: () => new Set(unix),
  };
}

const timespec = (s: number, ns: number) => {
  const buf = Buffer.alloc(16);
  buf.writeBigInt64LE(BigInt(s), 0);
  buf.writeBigInt64LE(BigInt(ns), 8);
  return buf;
};
const pollfds = (...entries: [number, number][]) => {
  const buf = Buffer.alloc(8 * entries.length);
  entries.forEach(([fd, events], i) => {
    buf.writeInt32LE(fd, i * 8);
    buf.writeInt16LE(events, i * 8 + 4);
  });
  return buf;
};
const fdset = (...fds: number[]) => {
  const buf = Buffer.alloc(128);
  for (const fd of fds) buf[fd >> 3] = (buf[fd >> 3] as number) | (1 << (fd & 7));
  return buf;
};
const epollInfo = (...items: [number, string, number][]) =>
  [
    'pos:\t0',
    'flags:\t02000002',
    ...items.map(
      ([fd, events, ino]) =>
        `tfd: ${String(fd).padStart(8)} events: ${events.padStart(8)} data: ${String(fd).padStart(16)}  pos:0 ino:${ino.toString(16)} sdev:f`,
    ),
  ].join('\n');
const line = (nr: number, ...args: string[]) =>
  [nr, ...args, ...Array(6 - args.length).fill('0x0'), '0x7ffc', '0x7f00'].join(' ');

/** node's event loop: the terminal (fd 20), its eventfd (16) and its signal pipe (14, 15). */
const NODE_FDS = {
  0: TTY,
  14: 'pipe:[31650]',
  15: 'pipe:[31650]',
  16: 'anon_inode:[eventfd]',
  20: TTY,
  22: 'socket:[9001]',
  24: 'pipe:[777]',
  26: 'anon_inode:[timerfd]',
};

function classify(text: string, process: FakeProcess, unix: number[] = []): ThreadWait {
  const reader = fakeReader({ 42: process }, unix);
  return classifyThreadWait(text, {
    pid: 42,
    syscalls: x64,
    sources: new WakeSources(42, TTY, reader),
    reader,
    clocks: { monotonicNs: () => 1_000_000_000_000n, realtimeNs: () => 5_000_000_000_000n },
  });
}

const asleep = (terminal: boolean, waitMs: number, pipes: number[] = []): ThreadWait => ({
  kind: 'asleep',
  terminal,
  pipes,
  waitMs,
});
const ACTIVE: ThreadWait = { kind: 'active' };

describe('classifyThreadWait: what a thread waits for', () => {
  const plain: FakeProcess = { fds: { 0: TTY, 3: '/dev/tty', 4: 'pipe:[123]', 5: 'socket:[9]' } };
  const rows: [string, string, FakeProcess, ThreadWait, number[]?][] = [
    ['read on the terminal', line(0, '0x0', '0x5581', '0x1'), plain, asleep(true, inf)],
    ['read on /dev/tty', line(0, '0x3', '0x5581', '0x1'), plain, asleep(true, inf)],
    [
      'read on a pipe: the group decides',
      line(0, '0x4', '0x5581', '0x1'),
      plain,
      asleep(false, inf, [123]),
    ],
    ['read on a socket', line(0, '0x5', '0x5581', '0x1'), plain, ACTIVE],
    ['running', 'running', plain, ACTIVE],
    ['an unknown syscall', line(999, '0x0'), plain, ACTIVE],
    [
      'poll on the terminal, no timeout',
      line(7, '0xa0', '0x1', '0xffffffffffffffff'),
      { ...plain, memory: { a0: pollfds([0, 1]) } },
      asleep(true, inf),
    ],
    [
      'poll on the terminal, 4 s (vim)',
      line(7, '0xa0', '0x1', '0xfa0'),
      { ...plain, memory: { a0: pollfds([0, 1]) } },
      asleep(true, 4000),
    ],
    [
      'poll on the terminal, 80 ms: a loop at work',
      line(7, '0xa0', '0x1', '0x50'),
      { ...plain, memory: { a0: pollfds([0, 1]) } },
      ACTIVE,
    ],
    [
      'poll on two sockets, 1 s (curl downloading)',
      line(7, '0xa0', '0x2', '0x3e8'),
      {
        fds: { 0: TTY, 3: 'socket:[1]', 5: 'socket:[2]' },
        memory: { a0: pollfds([5, 1], [3, 1]) },
      },
      ACTIVE,
    ],
    [
      'poll on the terminal and a socket',
      line(7, '0xa0', '0x2', '0xffffffffffffffff'),
      { ...plain, memory: { a0: pollfds([0, 1], [5, 1]) } },
      ACTIVE,
    ],
    [
      'poll to write to the terminal',
      line(7, '0xa0', '0x1', '0xffffffffffffffff'),
      { ...plain, memory: { a0: pollfds([0, 4]) } },
      ACTIVE,
    ],
    [
      'poll whose descriptors cannot be read',
      line(7, '0xa0', '0x1', '0xffffffffffffffff'),
      plain,
      ACTIVE,
    ],
    [
      'fish: the terminal, its notifier FIFO (read-write) and an eventfd',
      line(7, '0xa0', '0x3', '0xffffffffffffffff'),
      {
        fds: {
          0: TTY,
          5: '/tmp/fish.me/fish_universal_variables.notifier',
          6: 'anon_inode:[eventfd]',
        },
        info: { 5: 'pos:\t0\nflags:\t0104002\n' },
        fifos: [5],
        memory: { a0: pollfds([0, 1], [5, 1], [6, 1]) },
      },
      asleep(true, inf),
    ],
    [
      "a FIFO open for reading only is someone else's stream",
      line(7, '0xa0', '0x2', '0xffffffffffffffff'),
      {
        fds: { 0: TTY, 5: '/tmp/stream' },
        info: { 5: 'pos:\t0\nflags:\t0100000\n' },
        fifos: [5],
        memory: { a0: pollfds([0, 1], [5, 1]) },
      },
      ACTIVE,
    ],
    [
      'select on /dev/tty with stdin a pipe, no timeout',
      line(23, '0x4', '0xb0', '0x0', '0x0', '0x0'),
      { ...plain, memory: { b0: fdset(3) } },
      asleep(true, inf),
    ],
    [
      'pselect6 on the terminal, 10 s',
      line(270, '0x1', '0xb0', '0x0', '0x0', '0xc0'),
      { ...plain, memory: { b0: fdset(0), c0: timespec(10, 0) } },
      asleep(true, 10000),
    ],
    [
      'pselect6 of wget on a socket, 900 s',
      line(270, '0x6', '0xb0', '0x0', '0x0', '0xc0'),
      { ...plain, memory: { b0: fdset(5), c0: timespec(900, 0) } },
      ACTIVE,
    ],
    [
      'select waiting to write',
      line(23, '0x6', '0xb0', '0xb8', '0x0', '0x0'),
      { ...plain, memory: { b0: fdset(0), b8: fdset(5) } },
      ACTIVE,
    ],
    [
      'ppoll whose timeout cannot be read',
      line(271, '0xa0', '0x1', '0xc0'),
      { ...plain, memory: { a0: pollfds([0, 1]) } },
      ACTIVE,
    ],
    [
      'node at its prompt: terminal, eventfd, signal pipe; a timer in 8 s',
      line(281, '0xd', '0x7f', '0x400', '0x1f94'),
      { fds: NODE_FDS, info: { 13: epollInfo([16, '19', 1], [14, '19', 31650], [20, '19', 3]) } },
      asleep(true, 8084),
    ],
    [
      'node waiting for a timer only (setTimeout)',
      line(281, '0xd', '0x7f', '0x400', '0x1b58'),
      { fds: NODE_FDS, info: { 13: epollInfo([16, '19', 1], [14, '19', 31650]) } },
      asleep(false, 7000),
    ],
    [
      'node waiting for a child (execFile): its pipe and sockets',
      line(281, '0xd', '0x7f', '0x400', '0xffffffff'),
      { fds: NODE_FDS, info: { 13: epollInfo([24, '19', 777], [22, '19', 9001], [16, '19', 1]) } },
      ACTIVE,
    ],
    [
      'an epoll item waiting to write',
      line(281, '0xd', '0x7f', '0x400', '0xffffffff'),
      { fds: NODE_FDS, info: { 13: epollInfo([20, '19', 3], [22, '4', 9001]) } },
      ACTIVE,
    ],
    [
      'a one-shot epoll item that fired waits for nothing',
      line(281, '0xd', '0x7f', '0x400', '0xffffffff'),
      { fds: NODE_FDS, info: { 13: epollInfo([20, '19', 3], [22, '40000000', 9001]) } },
      asleep(true, inf),
    ],
    [
      'an epoll item whose descriptor number was reused',
      line(281, '0xd', '0x7f', '0x400', '0xffffffff'),
      { fds: NODE_FDS, info: { 13: epollInfo([20, '19', 3], [14, '19', 5]) } },
      ACTIVE,
    ],
    [
      'an armed timerfd due in 200 ms',
      line(281, '0xd', '0x7f', '0x400', '0xffffffff'),
      {
        fds: NODE_FDS,
        info: {
          13: epollInfo([20, '19', 3], [26, '19', 1]),
          26: 'clockid: 1\nit_value: (0, 200000000)\n',
        },
      },
      ACTIVE,
    ],
    [
      'a disarmed timerfd',
      line(281, '0xd', '0x7f', '0x400', '0xffffffff'),
      {
        fds: NODE_FDS,
        info: { 13: epollInfo([20, '19', 3], [26, '19', 1]), 26: 'clockid: 1\nit_value: (0, 0)\n' },
      },
      asleep(true, inf),
    ],
    [
      'python asyncio at a prompt: the terminal and its own socket pair',
      line(232, '0x3', '0x7f', '0x2', '0xffffffff'),
      {
        fds: { 0: TTY, 3: 'anon_inode:[eventpoll]', 4: 'socket:[35513]', 5: 'socket:[35514]' },
        info: { 3: epollInfo([4, '19', 35513], [0, '19', 3]) },
      },
      asleep(true, inf),
      [35513, 35514],
    ],
    [
      'a socket whose neighbour inode is not a Unix socket',
      line(232, '0x3', '0x7f', '0x2', '0xffffffff'),
      {
        fds: { 0: TTY, 3: 'anon_inode:[eventpoll]', 4: 'socket:[35513]', 5: 'socket:[35514]' },
        info: { 3: epollInfo([4, '19', 35513], [0, '19', 3]) },
      },
      ACTIVE,
      [35513],
    ],
    [
      'an idle worker (futex, no timeout)',
      line(202, '0x55', '0x80', '0x0', '0x0'),
      plain,
      asleep(false, inf),
    ],
    [
      'a futex wait of 50 ms',
      line(202, '0x55', '0x80', '0x0', '0xc0'),
      { ...plain, memory: { c0: timespec(0, 50_000_000) } },
      ACTIVE,
    ],
    [
      'a futex wait until 10 s from now (absolute, monotonic)',
      line(202, '0x55', '0x89', '0x0', '0xc0'),
      { ...plain, memory: { c0: timespec(1010, 0) } },
      asleep(false, 10000),
    ],
    [
      'nanosleep 2 s',
      line(35, '0xc0', '0x0'),
      { ...plain, memory: { c0: timespec(2, 0) } },
      asleep(false, 2000),
    ],
    [
      'clock_nanosleep 10 ms',
      line(230, '0x0', '0x0', '0xc0'),
      { ...plain, memory: { c0: timespec(0, 10_000_000) } },
      ACTIVE,
    ],
    ['wait4 for a child', line(61, '0xffffffffffffffff', '0x7ffd'), plain, asleep(false, inf)],
    ['rt_sigsuspend', line(130, '0x7ffd', '0x8'), plain, asleep(false, inf)],
  ];
  for (const [name, text, process, expected, unix] of rows) {
    it(name, () => assert.deepEqual(classify(text, process, unix), expected));
  }
});

describe('judgeGroup: whether the foreground group waits for input', () => {
  const member = (pid: number, state = 'S', cpuTicks = 1): GroupMember => ({
    pid,
    state,
    cpuTicks,
  });
  const READ_TTY = line(0, '0x0', '0x5581', '0x1');
  const READ_PIPE = line(0, '0x4', '0x5581', '0x1');
  const IDLE = line(202, '0x55', '0x80', '0x0', '0x0');
  const WAIT4 = line(61, '0xffffffffffffffff', '0x7ffd');
  const judge = (group: GroupMember[], procs: Record<number, FakeProcess>, passwordMode = false) =>
    judgeGroup(group, {
      ttyPath: TTY,
      syscalls: x64,
      reader: fakeReader(procs),
      isPasswordMode: () => passwordMode,
    });

  it('a reader of the terminal with an idle worker thread waits', () => {
    const wait = judge([member(10, 'S', 3)], {
      10: { fds: { 0: TTY }, threads: { 10: READ_TTY, 11: IDLE } },
    });
    assert.deepEqual(wait, { waiterPid: 10, waitMs: inf, cpuMs: 30 });
  });
  it('a thread at work means it does not', () => {
    assert.equal(
      judge([member(10)], { 10: { fds: { 0: TTY }, threads: { 10: READ_TTY, 11: 'running' } } }),
      undefined,
    );
  });
  it('a process that is not asleep means it does not', () => {
    assert.equal(
      judge([member(10, 'R')], { 10: { fds: { 0: TTY }, threads: { 10: READ_TTY } } }),
      undefined,
    );
  });
  it('a shell waiting for the reader (its child) does not stop it', () => {
    const wait = judge([member(9), member(10)], {
      9: { fds: { 0: TTY }, threads: { 9: WAIT4 } },
      10: { fds: { 0: TTY }, threads: { 10: READ_TTY } },
    });
    assert.equal(wait?.waiterPid, 10);
  });
  it('a timer of nobody on the terminal is no wait for input', () => {
    const sleeping = line(35, '0xc0', '0x0');
    const procs = {
      10: { fds: { 0: TTY }, memory: { c0: timespec(5, 0) }, threads: { 10: sleeping } },
    };
    assert.equal(judge([member(10)], procs), undefined);
  });
  it('the shortest timer in the group bounds the wait', () => {
    const sleeping = line(35, '0xc0', '0x0');
    const wait = judge([member(10)], {
      10: {
        fds: { 0: TTY },
        memory: { c0: timespec(2, 0) },
        threads: { 10: READ_TTY, 11: sleeping },
      },
    });
    assert.equal(wait?.waitMs, 2000);
  });
  it("a pipeline's reader counts when its writer is in the group", () => {
    const procs = {
      10: { fds: { 0: TTY, 4: 'pipe:[123]' }, threads: { 10: READ_PIPE } },
      11: {
        fds: { 1: 'pipe:[123]', 3: '/dev/tty' },
        threads: { 11: line(0, '0x3', '0x1', '0x1') },
      },
    };
    assert.equal(judge([member(10), member(11)], procs)?.waiterPid, 11);
  });
  it('a pipe from outside the group means it does not', () => {
    const procs = {
      10: { fds: { 0: TTY, 4: 'pipe:[123]' }, threads: { 10: READ_PIPE } },
      11: { fds: { 3: '/dev/tty' }, threads: { 11: line(0, '0x3', '0x1', '0x1') } },
    };
    assert.equal(judge([member(10), member(11)], procs), undefined);
  });
  it("another user's process (sudo) waits only while the terminal is in a password prompt's mode", () => {
    const procs = {
      9: { fds: { 0: TTY }, threads: { 9: WAIT4 } },
      10: { fds: {}, threads: { 10: 'denied' as const } },
    };
    const group = [member(9), member(10)];
    assert.equal(judge(group, procs, false), undefined);
    assert.deepEqual(judge(group, procs, true), {
      waiterPid: 10,
      waitMs: inf,
      cpuMs: 20,
      byTerminalMode: true,
    });
  });
  it('a group that is gone is no wait', () => {
    assert.equal(judge([], {}), undefined);
    assert.equal(judge([member(10)], {}), undefined);
  });
});

describe('input-wait probe on real programs', {
  skip: process.platform !== 'linux' && 'Linux only',
}, () => {
  async function probeOf(file: string, args: string[]) {
    let output = '';
    const pty = spawnPty(
      {
        file,
        args,
        cwd: '/',
        env: { ...(process.env as Record<string, string>), TERM: 'xterm-256color' },
        cols: 80,
        rows: 24,
      },
      {
        onData: (chunk) => {
          output += Buffer.from(chunk).toString();
        },
        onExit: () => undefined,
      },
    );
    const probe = createInputWaitProbe(pty.pid, pty.ttyPath);
    assert.ok(probe);
    return { pty, probe, output: () => output };
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

  it("reports the foreground group's CPU time; a thread at work means no wait", async () => {
    const program = [
      'import threading, time',
      'def spin():',
      '    end = time.time() + 30',
      '    while time.time() < end: pass',
      'threading.Thread(target=spin, daemon=True).start()',
      'print("spinning", flush=True)',
      'input()',
    ].join('\n');
    const idle = await probeOf(python(), ['-q']);
    const busy = await probeOf(python(), ['-c', program]);
    try {
      assert.ok(await eventually(() => idle.probe.isWaiting()));
      const before = idle.probe.inputWait()?.cpuMs ?? 0;
      await sleep(300);
      const after = idle.probe.inputWait()?.cpuMs ?? 0;
      assert.ok(after - before <= 10, `idle: ${before} → ${after}`);
      // The main thread reads the terminal, but a thread at work can print at any time.
      await sleep(1000);
      for (let i = 0; i < 20; i++) {
        assert.equal(busy.probe.isWaiting(), false, 'a thread at work');
        await sleep(20);
      }
    } finally {
      for (const { pty } of [idle, busy]) {
        process.kill(pty.pid, 'SIGKILL');
        pty.dispose();
      }
    }
  });

  it('tells event loops at work from event loops at a prompt', async () => {
    const node = process.execPath;
    const cases: [string, string, string[], boolean][] = [
      ['node, a timer', node, ['-e', 'setTimeout(() => {}, 30000); console.log("READY")'], false],
      [
        'node, a child',
        node,
        [
          '-e',
          "require('child_process').execFile('sleep', ['30'], () => {}); console.log('READY')",
        ],
        false,
      ],
      [
        'node, readline',
        node,
        [
          '-e',
          "require('readline').createInterface({input: process.stdin}).question('? ', () => {})",
        ],
        true,
      ],
      [
        'python asyncio, a sleep',
        python(),
        ['-c', 'import asyncio; print("READY", flush=True); asyncio.run(asyncio.sleep(30))'],
        false,
      ],
      [
        'python asyncio, a reader of the terminal',
        python(),
        [
          '-c',
          'import asyncio, sys\nasync def main():\n    f = asyncio.get_running_loop().create_future()\n    asyncio.get_running_loop().add_reader(0, lambda: None)\n    await f\nasyncio.run(main())',
        ],
        true,
      ],
      [
        '/dev/tty asked with stdin a pipe',
        '/bin/sh',
        [
          '-c',
          `echo x | ${python()} -c "import select; r = open('/dev/tty'); select.select([r], [], [])"`,
        ],
        true,
      ],
    ];
    const probes = await Promise.all(cases.map(([, file, args]) => probeOf(file, args)));
    try {
      for (const [i, [name, , , waits]] of cases.entries()) {
        const { probe, output } = probes[i] as Awaited<ReturnType<typeof probeOf>>;
        if (waits) {
          assert.ok(await eventually(() => probe.isWaiting(), 10_000), `${name}: waits`);
        } else {
          assert.ok(await eventually(() => output().includes('READY'), 10_000), `${name}: runs`);
          // Asleep in its loop by then: the probe has had every chance to call it a wait.
          await sleep(300);
          for (let n = 0; n < 10; n++) {
            assert.equal(probe.isWaiting(), false, `${name}: does not wait`);
            await sleep(50);
          }
        }
      }
    } finally {
      for (const { pty } of probes) {
        for (const { pid } of scanProcSync(pty.pid).procs) process.kill(pid, 'SIGKILL');
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
