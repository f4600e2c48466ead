/**
 * What a blocked thread is waiting in, read from its /proc/<pid>/task/<tid>/syscall line
 * ("nr arg0 … arg5 sp pc", or "running"): the blocking syscalls per architecture, where each
 * keeps its descriptors, and how long it may sleep. Pure: the thread's memory (a pollfd array,
 * an fd_set, a timespec) is read through the function the caller passes.
 * @see spec/tools.md (Early stop)
 */

/** Where a blocking syscall keeps its timeout. */
export type TimeoutAt =
  | { readonly arg: number; readonly is: 'ms' }
  | { readonly arg: number; readonly is: 'timespec' | 'timeval' }
  | { readonly arg: number; readonly is: 'futex' }
  | { readonly arg: number; readonly is: 'clock_nanosleep' };

export type SyscallKind =
  /** read(fd, …) and readv(fd, …). */
  | { readonly kind: 'read' }
  /** poll/ppoll(fds, nfds, …). */
  | { readonly kind: 'poll'; readonly timeout: TimeoutAt }
  /** select/pselect6(nfds, readfds, writefds, exceptfds, timeout…). */
  | { readonly kind: 'select'; readonly timeout: TimeoutAt }
  /** epoll_wait/epoll_pwait/epoll_pwait2(epfd, …): the set is in /proc/<pid>/fdinfo/<epfd>. */
  | { readonly kind: 'epoll'; readonly timeout: TimeoutAt }
  /** futex(uaddr, op, val, timeout…): a lock or condition; another thread of the process wakes it. */
  | { readonly kind: 'futex'; readonly timeout: TimeoutAt }
  /** nanosleep, clock_nanosleep. */
  | { readonly kind: 'sleep'; readonly timeout: TimeoutAt }
  /** wait4, waitid: a child of the process must change state first. */
  | { readonly kind: 'child' }
  /** pause, rt_sigsuspend: only a signal wakes it. */
  | { readonly kind: 'signal' }
  /** rt_sigtimedwait(set, info, timeout, …). */
  | { readonly kind: 'sigtimedwait'; readonly timeout: TimeoutAt };

const ms = (arg: number): TimeoutAt => ({ arg, is: 'ms' });
const timespec = (arg: number): TimeoutAt => ({ arg, is: 'timespec' });

/** Blocking syscalls per architecture (process.arch), by number. */
export const SYSCALLS: Record<string, Record<number, SyscallKind>> = {
  x64: {
    0: { kind: 'read' },
    19: { kind: 'read' },
    7: { kind: 'poll', timeout: ms(2) },
    271: { kind: 'poll', timeout: timespec(2) },
    23: { kind: 'select', timeout: { arg: 4, is: 'timeval' } },
    270: { kind: 'select', timeout: timespec(4) },
    232: { kind: 'epoll', timeout: ms(3) },
    281: { kind: 'epoll', timeout: ms(3) },
    441: { kind: 'epoll', timeout: timespec(3) },
    202: { kind: 'futex', timeout: { arg: 3, is: 'futex' } },
    35: { kind: 'sleep', timeout: timespec(0) },
    230: { kind: 'sleep', timeout: { arg: 2, is: 'clock_nanosleep' } },
    61: { kind: 'child' },
    247: { kind: 'child' },
    34: { kind: 'signal' },
    130: { kind: 'signal' },
    128: { kind: 'sigtimedwait', timeout: timespec(2) },
  },
  arm64: {
    63: { kind: 'read' },
    65: { kind: 'read' },
    73: { kind: 'poll', timeout: timespec(2) },
    72: { kind: 'select', timeout: timespec(4) },
    22: { kind: 'epoll', timeout: ms(3) },
    441: { kind: 'epoll', timeout: timespec(3) },
    98: { kind: 'futex', timeout: { arg: 3, is: 'futex' } },
    101: { kind: 'sleep', timeout: timespec(0) },
    115: { kind: 'sleep', timeout: { arg: 2, is: 'clock_nanosleep' } },
    260: { kind: 'child' },
    95: { kind: 'child' },
    133: { kind: 'signal' },
    137: { kind: 'sigtimedwait', timeout: timespec(2) },
  },
};

/** A parsed syscall line: the call and its six arguments. */
export interface BlockedCall {
  readonly nr: number;
  readonly args: readonly bigint[];
}

/** The call in a syscall line, or undefined when the thread runs or the line is not one. */
export function parseSyscallLine(line: string): BlockedCall | undefined {
  const parts = line.trim().split(' ');
  if (parts.length < 7 || !/^\d+$/.test(parts[0] as string)) return undefined;
  try {
    return { nr: Number(parts[0]), args: parts.slice(1, 7).map((hex) => BigInt(hex)) };
  } catch {
    return undefined;
  }
}

/** Reads `length` bytes of the thread's memory at `address`; undefined when it cannot. */
export type ReadMemory = (address: bigint, length: number) => Buffer | undefined;

/** The clocks an absolute timeout is measured against, in ns (CLOCK_MONOTONIC, CLOCK_REALTIME). */
export interface Clocks {
  readonly monotonicNs: () => bigint;
  readonly realtimeNs: () => bigint;
}

export const SYSTEM_CLOCKS: Clocks = {
  // libuv's hrtime is CLOCK_MONOTONIC on Linux.
  monotonicNs: () => process.hrtime.bigint(),
  realtimeNs: () => BigInt(Date.now()) * 1_000_000n,
};

const FUTEX_CMD_MASK = 0x7fn;
const FUTEX_CLOCK_REALTIME = 0x100n;
/** futex ops whose timeout is an absolute time: WAIT_BITSET, LOCK_PI, WAIT_REQUEUE_PI, LOCK_PI2. */
const FUTEX_ABSOLUTE = new Set([9n, 6n, 11n, 13n]);
const TIMER_ABSTIME = 1n;
const CLOCK_REALTIME = 0n;

/**
 * How long the call may sleep, in ms: Infinity without a timeout, the timeout as given for a
 * relative one (an upper bound: part of it may have passed), what is left of an absolute one;
 * undefined when the timeout cannot be read.
 */
export function timeoutMsOf(
  call: BlockedCall,
  at: TimeoutAt,
  readMemory: ReadMemory,
  clocks: Clocks = SYSTEM_CLOCKS,
): number | undefined {
  const arg = call.args[at.arg] as bigint;
  if (at.is === 'ms') {
    const value = BigInt.asIntN(32, arg);
    return value < 0n ? Number.POSITIVE_INFINITY : Number(value);
  }
  if (arg === 0n) return Number.POSITIVE_INFINITY;
  const mem = readMemory(arg, 16);
  if (!mem || mem.length < 16) return undefined;
  const seconds = mem.readBigInt64LE(0);
  const fraction = mem.readBigInt64LE(8);
  const ns = seconds * 1_000_000_000n + (at.is === 'timeval' ? fraction * 1000n : fraction);
  let absolute: 'monotonic' | 'realtime' | undefined;
  if (at.is === 'futex') {
    const op = call.args[1] as bigint;
    if (FUTEX_ABSOLUTE.has(op & FUTEX_CMD_MASK)) {
      absolute =
        (op & FUTEX_CLOCK_REALTIME) !== 0n || (op & FUTEX_CMD_MASK) === 6n
          ? 'realtime'
          : 'monotonic';
    }
  } else if (at.is === 'clock_nanosleep' && ((call.args[1] as bigint) & TIMER_ABSTIME) !== 0n) {
    absolute = (call.args[0] as bigint) === CLOCK_REALTIME ? 'realtime' : 'monotonic';
  }
  if (absolute === undefined) return Number(ns) / 1e6;
  const now = absolute === 'realtime' ? clocks.realtimeNs() : clocks.monotonicNs();
  return Math.max(0, Number(ns - now) / 1e6);
}

/** POLLIN | POLLPRI | POLLRDHUP: a pollfd entry that waits for something to read. */
const POLL_READ = 0x1 | 0x2 | 0x2000;
/** Most descriptors a wait may name before it counts as one that cannot be read in full. */
export const MAX_WAIT_FDS = 256;

/**
 * The descriptors a poll or select waits to read (and, for select, any it waits to write or for
 * an exception on), from the thread's memory; undefined when they cannot be read in full.
 * `writes` are descriptors waited on for writing: never a wait for input.
 */
export function waitedFds(
  call: BlockedCall,
  kind: 'poll' | 'select',
  readMemory: ReadMemory,
): { readonly reads: number[]; readonly writes: number[] } | undefined {
  if (kind === 'poll') {
    const nfds = Number(call.args[1]);
    if (nfds > MAX_WAIT_FDS) return undefined;
    const mem = readMemory(call.args[0] as bigint, nfds * 8);
    if (!mem || mem.length < nfds * 8) return undefined;
    const reads: number[] = [];
    const writes: number[] = [];
    for (let i = 0; i < nfds; i++) {
      const fd = mem.readInt32LE(i * 8);
      const events = mem.readInt16LE(i * 8 + 4);
      if (fd < 0) continue;
      if (events & POLL_READ) reads.push(fd);
      else if (events !== 0) writes.push(fd);
    }
    return { reads, writes };
  }
  const nfds = Number(call.args[0]);
  if (nfds > 1024) return undefined;
  const bytes = Math.ceil(nfds / 64) * 8;
  const set = (index: number): number[] | undefined => {
    const address = call.args[index] as bigint;
    if (address === 0n || nfds === 0) return [];
    const mem = readMemory(address, bytes);
    if (!mem || mem.length < bytes) return undefined;
    const fds: number[] = [];
    for (let fd = 0; fd < nfds; fd++) if ((mem[fd >> 3] as number) & (1 << (fd & 7))) fds.push(fd);
    return fds;
  };
  const reads = set(1);
  const writes = set(2);
  const excepts = set(3);
  if (!reads || !writes || !excepts) return undefined;
  // An exception wait on a descriptor is a wait for something to arrive on it, like a read.
  return { reads: [...new Set([...reads, ...excepts])], writes };
}

/** EPOLLIN | EPOLLPRI | EPOLLRDHUP: an epoll item that waits for something to read. */
const EPOLL_READ = 0x1 | 0x2 | 0x2000;
/** Flags that are not events: EPOLLEXCLUSIVE, EPOLLWAKEUP, EPOLLONESHOT, EPOLLET. */
const EPOLL_FLAGS = 0xf0000000;

/** One item of an epoll set, from /proc/<pid>/fdinfo/<epfd>. */
export interface EpollItem {
  readonly fd: number;
  /** The target file's inode, to tell a reused descriptor number. */
  readonly ino: number;
  readonly reads: boolean;
}

/**
 * The items of an epoll set that wait for anything (a one-shot item that has fired waits for
 * nothing), from the text of its fdinfo; undefined when the text names none of its lines.
 */
export function parseEpollItems(fdinfo: string): EpollItem[] {
  const items: EpollItem[] = [];
  for (const line of fdinfo.split('\n')) {
    const match = /^tfd:\s*(\d+)\s+events:\s*([0-9a-f]+)\b.*?\bino:\s*([0-9a-f]+)/.exec(line);
    if (!match) continue;
    const events = Number.parseInt(match[2] as string, 16) & ~EPOLL_FLAGS;
    if (events === 0) continue;
    items.push({
      fd: Number(match[1]),
      ino: Number.parseInt(match[3] as string, 16),
      reads: (events & EPOLL_READ) !== 0,
    });
  }
  return items;
}
