/**
 * Whether a terminal's foreground program is blocked waiting for terminal input, read from /proc
 * without spawning anything but `stty` (Linux only; elsewhere the probe is unavailable and
 * settlement falls back to the quiet interval). The program waits when every process of the
 * foreground process group is asleep, one of its threads waits on the terminal, and nothing else
 * can wake any of them on its own: each thread is blocked in a read of the terminal, or in a
 * poll/select/epoll whose descriptors are the terminal and wake-up channels of its own
 * (wake-sources.ts), or in a wait only another thread, a child or a signal ends (a lock, a
 * child's exit), or in a timed wait of LONG_WAIT_MS or more. A socket, a pipe from elsewhere, a
 * file watch or a short timer in any of them means it is not waiting: curl, node or python event
 * loops working are busy, not asking. Processes whose /proc entries the user may not read (sudo,
 * su, passwd: set-user-ID programs) count as waiting when the terminal is in the mode password
 * prompts use (terminal-mode.ts). It also tells how long such a wait may last, and whether the
 * rest of the terminal's session could still print (for waits that end early when the program
 * asks for input, session/early-stop.ts).
 * @see spec/tools.md (Settlement: the input-wait signal; terminal_input: early stop)
 */
import {
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  statSync,
} from 'node:fs';
import { type ProcStat, readProcStat } from './proc-stat.js';
import { scanProcSync } from './processes.js';
import { createTerminalModeReader, type TerminalModeReader } from './terminal-mode.js';
import {
  type BlockedCall,
  type Clocks,
  MAX_WAIT_FDS,
  parseEpollItems,
  parseSyscallLine,
  type ReadMemory,
  SYSCALLS,
  SYSTEM_CLOCKS,
  type SyscallKind,
  timeoutMsOf,
  waitedFds,
} from './wait-syscalls.js';
import { type FdReader, type WakeSource, WakeSources } from './wake-sources.js';

export { SYSCALLS } from './wait-syscalls.js';

/** Waits with a timeout at least this long count as waiting (vim waits 4 s); shorter ones are work. */
export const LONG_WAIT_MS = 1000;
const MAX_PROCESSES = 32;
/** A process with more threads than this is not looked into: it does not count as waiting. */
export const MAX_THREADS = 64;

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

/** What a thread's wait is read from: /proc, or a test. */
export interface ProcReader extends FdReader {
  /** The thread's syscall line; 'denied' when the user may not read it, undefined when gone. */
  syscall(pid: number, tid: number): string | 'denied' | undefined;
  /** The process's thread ids; undefined when gone. */
  threads(pid: number): number[] | undefined;
  readMemory(pid: number, address: bigint, length: number): Buffer | undefined;
}

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

/** A wait on these sources for at most `timeoutMs`: asleep, unless something else can end it. */
function asleepOn(sources: readonly WakeSource[], timeoutMs: number | undefined): ThreadWait {
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

/** A wait for input, as the probe sees it. */
export interface InputWait {
  /** How long it may last: Infinity for a read or a wait without a timeout, else its timeout. */
  readonly waitMs: number;
  /** CPU time the foreground process group has used so far, all threads (clock ticks × 10 ms). */
  readonly cpuMs: number;
  /** Seen through the terminal's mode (a program whose waits the user may not read). */
  readonly byTerminalMode?: boolean;
}

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
export interface GroupWait extends InputWait {
  readonly waiterPid: number;
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
  let cpuTicks = 0;
  let unreadablePid: number | undefined;
  const pipeWaits: { pid: number; inode: number }[] = [];
  const sources = new Map<number, WakeSources>();
  for (const { pid, state, cpuTicks: ticks } of group) {
    if (state !== 'S') return undefined;
    cpuTicks += ticks;
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
    cpuMs: cpuTicks * TICK_MS,
    ...(byTerminalMode ? { byTerminalMode } : {}),
  };
}

export interface InputWaitProbe {
  /** Whether the foreground program waits for input (and has consumed input sent since markInput). */
  isWaiting(): boolean;
  /** The foreground program's wait for input, when isWaiting() would say it waits. */
  inputWait(): InputWait | undefined;
  /**
   * Whether the session leader itself (an interactive shell) waits for input on the terminal,
   * whatever else its process group does (fish runs its background jobs in its own group).
   */
  leaderWaits(): boolean;
  /**
   * Whether no process of the terminal's session outside the foreground process group can print
   * on its own: each is stopped, a zombie, or an ancestor of the foreground group (the shell
   * waiting for its foreground job).
   */
  othersIdle(): boolean;
  /**
   * Call just before writing input (after the write, a program on another core may already have
   * read it and slept again): later waits count only once the program has slept since.
   */
  markInput(): void;
  /** CPU time the foreground process group has used so far (all threads), when it has one. */
  foregroundCpuMs(): number | undefined;
  /** Stops reading the terminal's mode. */
  dispose(): void;
}

/** A probe for the terminal whose session leader is `leaderPid`, or undefined off Linux. */
export function createInputWaitProbe(
  leaderPid: number,
  ttyPath: string,
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
  mode: TerminalModeReader | undefined = undefined,
): InputWaitProbe | undefined {
  const syscalls = SYSCALLS[arch];
  if (platform !== 'linux' || !syscalls || !ttyPath) return undefined;
  const terminalMode = mode ?? createTerminalModeReader(ttyPath);
  let marks: Map<number, number> | undefined;
  const judge = (leaderOnly: boolean): InputWait | undefined => {
    const group = leaderOnly ? leaderInForeground(leaderPid) : foregroundGroup(leaderPid);
    const wait = judgeGroup(group, {
      ttyPath,
      syscalls,
      reader: PROC_READER,
      clocks: SYSTEM_CLOCKS,
      isPasswordMode: () => terminalMode.isPasswordMode(),
    });
    if (wait === undefined) return undefined;
    const mark = marks?.get(wait.waiterPid);
    if (mark !== undefined) {
      // The program must have slept since the input was written, or it has not read it yet.
      if (sleepCount(wait.waiterPid) <= mark) return undefined;
      marks = undefined;
    }
    const { waiterPid: _, ...rest } = wait;
    return rest;
  };
  const inputWait = (): InputWait | undefined => judge(false);
  return {
    markInput() {
      const group = foregroundGroup(leaderPid);
      marks = new Map(group.map(({ pid }) => [pid, sleepCount(pid)]));
    },
    isWaiting: () => inputWait() !== undefined,
    inputWait,
    leaderWaits: () => judge(true) !== undefined,
    othersIdle: () => othersIdle(leaderPid),
    foregroundCpuMs() {
      const group = foregroundGroup(leaderPid);
      return group.length === 0
        ? undefined
        : group.reduce((sum, m) => sum + m.cpuTicks, 0) * TICK_MS;
    },
    dispose: () => terminalMode.dispose(),
  };
}

/**
 * Whether every process of the session led by `leaderPid` outside its foreground process group
 * is stopped (T, t), a zombie (a scan leaves those out) or an ancestor of a foreground process.
 * False when the scan may have missed a process or there is no foreground group.
 */
export function othersIdle(leaderPid: number): boolean {
  const tpgid = readStat(leaderPid)?.tpgid ?? -1;
  if (!(tpgid > 0)) return false;
  const scan = scanProcSync(leaderPid);
  if (!scan.complete) return false;
  // A member of the foreground group outside the leader's tree (an orphan) is not judged by
  // judgeGroup: it could print on its own.
  const judged = new Set(foregroundGroup(leaderPid).map((m) => m.pid));
  if (scan.procs.some((p) => p.pgrp === tpgid && !judged.has(p.pid))) return false;
  const inSession = new Set(scan.procs.map((p) => p.pid));
  const ancestors = new Set<number>();
  for (const proc of scan.procs) {
    if (proc.pgrp !== tpgid) continue;
    let pid = readStat(proc.pid)?.ppid;
    while (pid !== undefined && inSession.has(pid) && !ancestors.has(pid)) {
      ancestors.add(pid);
      pid = readStat(pid)?.ppid;
    }
  }
  return scan.procs.every(
    (p) => p.pgrp === tpgid || p.state === 'T' || p.state === 't' || ancestors.has(p.pid),
  );
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return undefined;
  }
}

const readStat = readProcStat;

/** /proc as the probe reads it. */
export const PROC_READER: ProcReader = {
  syscall(pid, tid) {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/syscall`, 'latin1');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return code === 'EACCES' || code === 'EPERM' ? 'denied' : undefined;
    }
  },
  threads(pid) {
    try {
      return readdirSync(`/proc/${pid}/task`).map(Number);
    } catch {
      return undefined;
    }
  },
  readMemory(pid, address, length) {
    let fd: number | undefined;
    try {
      fd = openSync(`/proc/${pid}/mem`, 'r');
      const buf = Buffer.alloc(length);
      const n = readSync(fd, buf, 0, length, address);
      return buf.subarray(0, n);
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  },
  fdTarget(pid, fd) {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      return undefined;
    }
  },
  fdTargets(pid) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      return undefined;
    }
    const targets = new Map<number, string>();
    for (const fd of fds.slice(0, 4096)) {
      const target = PROC_READER.fdTarget(pid, Number(fd));
      if (target !== undefined) targets.set(Number(fd), target);
    }
    return targets;
  },
  fdInfo: (pid, fd) => read(`/proc/${pid}/fdinfo/${fd}`),
  isFifo(pid, fd) {
    try {
      return statSync(`/proc/${pid}/fd/${fd}`).isFIFO();
    } catch {
      return false;
    }
  },
  unixSockets(pid) {
    const text = read(`/proc/${pid}/net/unix`);
    if (text === undefined) return undefined;
    const inodes = new Set<number>();
    // "Num RefCount Protocol Flags Type St Inode Path": the inode is the seventh field.
    for (const line of text.split('\n').slice(1)) {
      const inode = Number(line.trim().split(/\s+/)[6]);
      if (inode > 0) inodes.add(inode);
    }
    return inodes;
  },
};

/**
 * The foreground process group with each member's state and CPU time so far (user + system,
 * clock ticks): its leader and the session's descendants in it. Reads each /proc/<pid>/stat once.
 */
export function foregroundGroup(leaderPid: number): GroupMember[] {
  const stats = new Map<number, ProcStat | undefined>();
  const stat = (pid: number) => {
    if (!stats.has(pid)) stats.set(pid, readStat(pid));
    return stats.get(pid);
  };
  const leader = stat(leaderPid);
  if (!leader || leader.state === 'Z') return [];
  const tpgid = leader.tpgid;
  if (!(tpgid > 0)) return [];
  const group = new Map<number, ProcStat>();
  const consider = (pid: number) => {
    const s = stat(pid);
    if (s && s.pgrp === tpgid) group.set(pid, s);
  };
  consider(tpgid);
  const queue = [leaderPid];
  while (queue.length > 0) {
    // A group too large to read in full is not judged.
    if (group.size >= MAX_PROCESSES) return [];
    const pid = queue.shift() as number;
    consider(pid);
    for (const child of children(pid)) queue.push(child);
  }
  return [...group].map(([pid, s]) => ({
    pid,
    state: s.state,
    cpuTicks: (s.utime || 0) + (s.stime || 0),
  }));
}

/** The session leader alone, when it is in the terminal's foreground process group. */
function leaderInForeground(leaderPid: number): GroupMember[] {
  const s = readStat(leaderPid);
  if (!s || s.state === 'Z' || !(s.tpgid > 0) || s.pgrp !== s.tpgid) return [];
  return [{ pid: leaderPid, state: s.state, cpuTicks: (s.utime || 0) + (s.stime || 0) }];
}

function children(pid: number): number[] {
  const text = read(`/proc/${pid}/task/${pid}/children`);
  if (!text) return [];
  return text
    .split(' ')
    .filter((s) => s.trim() !== '')
    .map(Number);
}

/**
 * Times the process's main thread has gone to sleep (voluntary context switches). A program
 * seen waiting for input after input was written has slept since, whether it was asleep (it woke,
 * read, and slept again) or running when the input came (it read without ever being scheduled
 * out, then slept): a count of times it was scheduled in misses the second case.
 */
function sleepCount(pid: number): number {
  const status = read(`/proc/${pid}/status`);
  const match = status ? /voluntary_ctxt_switches:\s+(\d+)/.exec(status) : null;
  return match ? Number(match[1]) : 0;
}
