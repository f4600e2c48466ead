/**
 * The verdict on a foreground group, from its members' threads as a fake /proc describes them
 * (test/helpers/proc-fakes.ts): who waits on the terminal, how long, what else keeps it busy.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cpuMsOf, type GroupMember, judgeGroup, MAX_THREADS } from '../../../src/pty/group-wait.js';
import {
  type FakeProcess,
  fakeReader,
  inf,
  line,
  TTY,
  timespec,
  x64,
} from '../../helpers/proc-fakes.js';

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
  it('a process with more than MAX_THREADS threads is not looked into', () => {
    const threads = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [10 + i, i === 0 ? READ_TTY : IDLE]));
    assert.equal(
      judge([member(10)], { 10: { fds: { 0: TTY }, threads: threads(MAX_THREADS) } })?.waiterPid,
      10,
    );
    assert.equal(
      judge([member(10)], { 10: { fds: { 0: TTY }, threads: threads(MAX_THREADS + 1) } }),
      undefined,
    );
  });
});

describe('cpuMsOf: CPU time of the group', () => {
  it('adds every member, at 10 ms a clock tick', () => {
    const members = [
      { pid: 1, state: 'S', cpuTicks: 3 },
      { pid: 2, state: 'S', cpuTicks: 0 },
      { pid: 3, state: 'R', cpuTicks: 12 },
    ];
    assert.equal(cpuMsOf(members), 150);
    assert.equal(cpuMsOf([]), 0);
  });
});
