/**
 * Fake /proc for the input-wait tests: processes described by their descriptors, fdinfo texts,
 * memory and threads' syscall lines, read through the probe's ProcReader interface; and builders
 * of the kernel structures a blocked syscall's arguments point to.
 */
import type { ProcReader } from '../../src/pty/proc-reader.js';
import { SYSCALLS } from '../../src/pty/wait-syscalls.js';

export const TTY = '/dev/pts/7';
export const x64 = SYSCALLS.x64 as NonNullable<(typeof SYSCALLS)['x64']>;
export const inf = Number.POSITIVE_INFINITY;

/** A process as the test describes it: its descriptors, fdinfo texts, memory, threads. */
export interface FakeProcess {
  fds: Record<number, string>;
  info?: Record<number, string>;
  fifos?: number[];
  memory?: Record<string, Buffer>;
  threads?: Record<number, string | 'denied'>;
}

/** A ProcReader over the processes described, by pid; `unix`: the Unix-domain socket inodes. */
export function fakeReader(procs: Record<number, FakeProcess>, unix: number[] = []): ProcReader {
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

/** A struct timespec (x86-64). */
export const timespec = (s: number, ns: number) => {
  const buf = Buffer.alloc(16);
  buf.writeBigInt64LE(BigInt(s), 0);
  buf.writeBigInt64LE(BigInt(ns), 8);
  return buf;
};
/** An array of struct pollfd: [fd, events] each. */
export const pollfds = (...entries: [number, number][]) => {
  const buf = Buffer.alloc(8 * entries.length);
  entries.forEach(([fd, events], i) => {
    buf.writeInt32LE(fd, i * 8);
    buf.writeInt16LE(events, i * 8 + 4);
  });
  return buf;
};
/** An fd_set with these descriptors set. */
export const fdset = (...fds: number[]) => {
  const buf = Buffer.alloc(128);
  for (const fd of fds) buf[fd >> 3] = (buf[fd >> 3] as number) | (1 << (fd & 7));
  return buf;
};
/** The fdinfo text of an epoll descriptor watching [fd, events (hex), inode] each. */
export const epollInfo = (...items: [number, string, number][]) =>
  [
    'pos:\t0',
    'flags:\t02000002',
    ...items.map(
      ([fd, events, ino]) =>
        `tfd: ${String(fd).padStart(8)} events: ${events.padStart(8)} data: ${String(fd).padStart(16)}  pos:0 ino:${ino.toString(16)} sdev:f`,
    ),
  ].join('\n');
/** A /proc/<pid>/task/<tid>/syscall line: the number, up to six arguments, sp and pc. */
export const line = (nr: number, ...args: string[]) =>
  [nr, ...args, ...Array(6 - args.length).fill('0x0'), '0x7ffc', '0x7f00'].join(' ');
