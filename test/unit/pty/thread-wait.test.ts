/**
 * A thread's wait read from its /proc syscall line, with the terminal's descriptors and the
 * process's memory supplied by the test (test/helpers/proc-fakes.ts); and the rule that turns the
 * sources a wait can end on into a verdict.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  asleepOn,
  classifyThreadWait,
  LONG_WAIT_MS,
  type ThreadWait,
} from '../../../src/pty/thread-wait.js';
import { WakeSources } from '../../../src/pty/wake-sources.js';
import {
  epollInfo,
  type FakeProcess,
  fakeReader,
  fdset,
  inf,
  line,
  pollfds,
  TTY,
  timespec,
  x64,
} from '../../helpers/proc-fakes.js';

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

describe('asleepOn: a wait on these sources, for at most this long', () => {
  const rows: [string, Parameters<typeof asleepOn>[0], number | undefined, ThreadWait][] = [
    ['the terminal, no timeout', [{ kind: 'terminal' }], inf, asleep(true, inf)],
    ['nothing, a long timer', [], 5000, asleep(false, 5000)],
    ['a timeout that cannot be read', [{ kind: 'terminal' }], undefined, ACTIVE],
    [
      'the terminal and something from outside',
      [{ kind: 'terminal' }, { kind: 'outside' }],
      inf,
      ACTIVE,
    ],
    ['the terminal, a short timer', [{ kind: 'terminal' }], LONG_WAIT_MS - 1, ACTIVE],
    [
      'the terminal, a timer of LONG_WAIT_MS',
      [{ kind: 'terminal' }],
      LONG_WAIT_MS,
      asleep(true, LONG_WAIT_MS),
    ],
    [
      'an armed timerfd of its own bounds the wait',
      [{ kind: 'terminal' }, { kind: 'own', timeoutMs: 2500 }],
      inf,
      asleep(true, 2500),
    ],
    [
      'an armed timerfd of its own that fires soon is work',
      [{ kind: 'terminal' }, { kind: 'own', timeoutMs: 20 }],
      inf,
      ACTIVE,
    ],
    [
      'pipes are left to the group, by inode',
      [{ kind: 'pipe', inode: 5 }, { kind: 'own' }, { kind: 'pipe', inode: 9 }],
      inf,
      asleep(false, inf, [5, 9]),
    ],
  ];
  for (const [name, sources, timeoutMs, expected] of rows) {
    it(name, () => assert.deepEqual(asleepOn(sources, timeoutMs), expected));
  }
});
