/**
 * What one thread of the foreground group waits for, read from its /proc syscall line: blocked in
 * a read of the terminal, in a poll/select/epoll whose descriptors are the terminal and wake-up
 * channels of its own (wake-sources.ts), in a wait only another thread, a child or a signal ends,
 * or in a timed wait of LONG_WAIT_MS or more. Anything else can print on its own: it is active.
 * The syscall tables and argument decoding are wait-syscalls.ts; the group's verdict group-wait.ts.
 * @see spec/guarantees.md (Settlement: the input-wait signal)
 */
import type { ProcReader } from './proc-reader.js';
import {
  type BlockedCall,
  type Clocks,
  MAX_WAIT_FDS,
  parseEpollItems,
  parseSyscallLine,
  type ReadMemory,
  type SyscallKind,
  timeoutMsOf,
  waitedFds,
} from './wait-syscalls.js';
import type { WakeSource, WakeSources } from './wake-sources.js';

/** Waits with a timeout at least this long count as waiting (vim waits 4 s); shorter ones are work. */
export const LONG_WAIT_MS = 1000;

/** What one thread waits for, as far as input goes. */
export type ThreadWait =
  /**
   * Asleep until the terminal has input (`terminal`), a wake-up of its own or its group's comes
   * (pipes to other processes of the group, by inode, in `pipes`), or `waitMs` passes.
   */
  | {
      readonly kind: 'asleep';
      readonly terminal: boolean;
      readonly pipes: readonly number[];
      readonly waitMs: number;
    }
  /** Running, or in a wait something outside the group can end: it may print on its own. */
  | { readonly kind: 'active' }
  /** Its wait cannot be read (another user's process). */
  | { readonly kind: 'unreadable' };

const ACTIVE: ThreadWait = { kind: 'active' };

export interface ThreadContext {
  readonly pid: number;
  readonly syscalls: Record<number, SyscallKind>;
  readonly sources: WakeSources;
  readonly reader: Pick<ProcReader, 'fdInfo' | 'readMemory'>;
  readonly clocks?: Clocks;
}

/** Interprets one /proc/<pid>/task/<tid>/syscall line ("nr arg0 … arg5 sp pc", or "running"). */
export function classifyThreadWait(line: string, ctx: ThreadContext): ThreadWait {
  const call = parseSyscallLine(line);
  const kind = call && ctx.syscalls[call.nr];
  if (!call || !kind) return ACTIVE;
  const readMemory: ReadMemory = (address, length) =>
    ctx.reader.readMemory(ctx.pid, address, length);
  switch (kind.kind) {
    case 'read':
      return asleepOn([ctx.sources.classify(fdArg(call, 0))], Number.POSITIVE_INFINITY);
    case 'poll':
    case 'select': {
      const fds = waitedFds(call, kind.kind, readMemory);
      const timeout = timeoutMsOf(call, kind.timeout, readMemory, ctx.clocks);
      // Waiting to write (output the terminal has not taken, a socket) is work in progress.
      if (!fds || fds.writes.length > 0 || timeout === undefined) return ACTIVE;
      return asleepOn(
        fds.reads.map((fd) => ctx.sources.classify(fd)),
        timeout,
      );
    }
    case 'epoll': {
      const info = ctx.reader.fdInfo(ctx.pid, fdArg(call, 0));
      const timeout = timeoutMsOf(call, kind.timeout, readMemory, ctx.clocks);
      if (info === undefined || timeout === undefined) return ACTIVE;
      const items = parseEpollItems(info);
      if (items.length > MAX_WAIT_FDS || items.some((item) => !item.reads)) return ACTIVE;
      return asleepOn(
        items.map((item) => ctx.sources.classify(item.fd, item.ino)),
        timeout,
      );
    }
    case 'futex':
    case 'sleep':
    case 'sigtimedwait':
      return asleepOn([], timeoutMsOf(call, kind.timeout, readMemory, ctx.clocks));
    case 'child':
    case 'signal':
      return asleepOn([], Number.POSITIVE_INFINITY);
    default:
      return kind satisfies never;
  }
}

function fdArg(call: BlockedCall, index: number): number {
  return Number(BigInt.asIntN(32, call.args[index] as bigint));
}

/**
 * A wait on these sources for at most `timeoutMs`: asleep, unless something else can end it
 * (a source from outside, or a timer shorter than LONG_WAIT_MS).
 */
export function asleepOn(
  sources: readonly WakeSource[],
  timeoutMs: number | undefined,
): ThreadWait {
  if (timeoutMs === undefined) return ACTIVE;
  let waitMs = timeoutMs;
  let terminal = false;
  const pipes: number[] = [];
  for (const source of sources) {
    if (source.kind === 'outside') return ACTIVE;
    if (source.kind === 'terminal') terminal = true;
    else if (source.kind === 'pipe') pipes.push(source.inode);
    else if (source.timeoutMs !== undefined) waitMs = Math.min(waitMs, source.timeoutMs);
  }
  return waitMs < LONG_WAIT_MS ? ACTIVE : { kind: 'asleep', terminal, pipes, waitMs };
}
