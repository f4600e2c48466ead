/**
 * The verdict on a terminal's foreground process group: it waits for input when every process is
 * asleep, every thread asleep on nothing that can wake it but the terminal, its own wake-ups,
 * pipes within the group or a long timer (thread-wait.ts), and one of them on the terminal.
 * Processes whose /proc entries the user may not read (sudo, su, passwd: set-user-ID programs)
 * count as waiting when the terminal is in the mode password prompts use (terminal-mode.ts).
 * Who is in the group is foreground-group.ts; what is read, the ProcReader it is given.
 * @see spec/guarantees.md (Settlement: the input-wait signal)
 */
import type { ProcReader } from './proc-reader.js';
import { classifyThreadWait, type ThreadWait } from './thread-wait.js';
import type { Clocks, SyscallKind } from './wait-syscalls.js';
import { WakeSources } from './wake-sources.js';

/** A process with more threads than this is not looked into: it does not count as waiting. */
export const MAX_THREADS = 64;

/** Length of a clock tick in /proc/<pid>/stat CPU times (USER_HZ is 100 on Linux). */
const TICK_MS = 10;

/** One member of the foreground group. */
export interface GroupMember {
  readonly pid: number;
  readonly state: string;
  readonly cpuTicks: number;
}

export interface GroupContext {
  readonly ttyPath: string;
  readonly syscalls: Record<number, SyscallKind>;
  readonly reader: ProcReader;
  readonly clocks?: Clocks;
  /** Whether the terminal is now in a password prompt's mode (echo off, line editing on). */
  readonly isPasswordMode: () => boolean;
}

/** The verdict on a foreground group: the wait, and the process that waits on the terminal. */
export interface GroupWait {
  readonly waiterPid: number;
  /** How long it may last: Infinity for a read or a wait without a timeout, else its timeout. */
  readonly waitMs: number;
  /** CPU time the foreground process group has used so far, all threads (clock ticks × 10 ms). */
  readonly cpuMs: number;
  /** Seen through the terminal's mode (a program whose waits the user may not read). */
  readonly byTerminalMode?: boolean;
}

/** CPU time the members have used so far, all threads, in milliseconds. */
export function cpuMsOf(group: readonly GroupMember[]): number {
  return group.reduce((sum, m) => sum + m.cpuTicks, 0) * TICK_MS;
}

/**
 * Whether the foreground group waits for input: every process asleep, every thread asleep on
 * nothing that can wake it but the terminal, its own wake-ups, pipes within the group, or a long
 * timer; one of them on the terminal. Undefined when not, or when it cannot be told.
 */
export function judgeGroup(
  group: readonly GroupMember[],
  ctx: GroupContext,
): GroupWait | undefined {
  if (group.length === 0) return undefined;
  let waitMs = Number.POSITIVE_INFINITY;
  let waiterPid: number | undefined;
  let unreadablePid: number | undefined;
  const pipeWaits: { pid: number; inode: number }[] = [];
  const sources = new Map<number, WakeSources>();
  for (const { pid, state } of group) {
    if (state !== 'S') return undefined;
    const threads = ctx.reader.threads(pid);
    if (!threads || threads.length > MAX_THREADS) return undefined;
    const own = new WakeSources(pid, ctx.ttyPath, ctx.reader);
    sources.set(pid, own);
    for (const tid of threads) {
      const line = ctx.reader.syscall(pid, tid);
      if (line === undefined) return undefined;
      const wait: ThreadWait =
        line === 'denied'
          ? { kind: 'unreadable' }
          : classifyThreadWait(line, {
              pid,
              syscalls: ctx.syscalls,
              sources: own,
              reader: ctx.reader,
              ...(ctx.clocks ? { clocks: ctx.clocks } : {}),
            });
      if (wait.kind === 'active') return undefined;
      if (wait.kind === 'unreadable') {
        unreadablePid ??= pid;
        break;
      }
      waitMs = Math.min(waitMs, wait.waitMs);
      if (wait.terminal) waiterPid ??= pid;
      for (const inode of wait.pipes) pipeWaits.push({ pid, inode });
    }
  }
  // A pipe counts only when another process of the group holds it (a pipeline's neighbour).
  for (const { pid, inode } of pipeWaits) {
    const held = [...sources].some(([other, s]) => other !== pid && s.pipeInodes().has(inode));
    if (!held) return undefined;
  }
  let byTerminalMode = false;
  if (unreadablePid !== undefined) {
    // What the user may not read waits for input only if the terminal says so.
    if (!ctx.isPasswordMode()) return undefined;
    waiterPid ??= unreadablePid;
    byTerminalMode = true;
  }
  if (waiterPid === undefined) return undefined;
  return {
    waiterPid,
    waitMs,
    cpuMs: cpuMsOf(group),
    ...(byTerminalMode ? { byTerminalMode } : {}),
  };
}
