/**
 * Whether a terminal's foreground program is blocked waiting for terminal input, read from /proc
 * without spawning anything (Linux only; elsewhere the probe is unavailable and settlement falls
 * back to the quiet interval). A program waits when every process of the foreground process group
 * is asleep and one of its threads is blocked reading the terminal: read() on it, or a
 * poll/select/epoll wait with no timeout or a long one while the terminal is its stdin. It also
 * tells how long such a wait may last, and whether the rest of the terminal's session could still
 * print (for waits that end early when the program asks for input, session/early-stop.ts).
 * @see spec/tools.md (Settlement: the input-wait signal; terminal_input: early stop)
 */
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, readSync } from 'node:fs';
import { type ProcStat, parseProcStat } from './proc-stat.js';
import { scanProcSync } from './processes.js';

/** Waits with a timeout at least this long count as waiting for input (vim waits 4 s). */
export const LONG_WAIT_MS = 1000;
const MAX_PROCESSES = 32;
const MAX_THREADS = 16;

export type WaitKind =
  | { kind: 'read' }
  | { kind: 'poll'; timeoutArg: number; timeoutIs: 'ms' | 'timespec' | 'timeval' };

/** Syscall numbers of blocking reads and waits, per architecture. */
export const SYSCALLS: Record<string, Record<number, WaitKind>> = {
  x64: {
    0: { kind: 'read' },
    7: { kind: 'poll', timeoutArg: 2, timeoutIs: 'ms' },
    23: { kind: 'poll', timeoutArg: 4, timeoutIs: 'timeval' },
    232: { kind: 'poll', timeoutArg: 3, timeoutIs: 'ms' },
    270: { kind: 'poll', timeoutArg: 4, timeoutIs: 'timespec' },
    271: { kind: 'poll', timeoutArg: 2, timeoutIs: 'timespec' },
    281: { kind: 'poll', timeoutArg: 3, timeoutIs: 'ms' },
    441: { kind: 'poll', timeoutArg: 3, timeoutIs: 'timespec' },
  },
  arm64: {
    63: { kind: 'read' },
    22: { kind: 'poll', timeoutArg: 3, timeoutIs: 'ms' },
    72: { kind: 'poll', timeoutArg: 4, timeoutIs: 'timespec' },
    73: { kind: 'poll', timeoutArg: 2, timeoutIs: 'timespec' },
    441: { kind: 'poll', timeoutArg: 3, timeoutIs: 'timespec' },
  },
};

/** A wait for input, as the probe sees it. */
export interface InputWait {
  /** How long it may last: Infinity for a read or a wait without a timeout, else its timeout. */
  readonly waitMs: number;
  /** CPU time the foreground process group has used so far, all threads (clock ticks × 10 ms). */
  readonly cpuMs: number;
}

/** Length of a clock tick in /proc/<pid>/stat CPU times (USER_HZ is 100 on Linux). */
const TICK_MS = 10;

export interface InputWaitProbe {
  /** Whether the foreground program waits for input (and has consumed input sent since markInput). */
  isWaiting(): boolean;
  /** The foreground program's wait for input, when isWaiting() would say it waits. */
  inputWait(): InputWait | undefined;
  /**
   * Whether no process of the terminal's session outside the foreground process group can print
   * on its own: each is stopped, a zombie, or an ancestor of the foreground group (the shell
   * waiting for its foreground job).
   */
  othersIdle(): boolean;
  /** Call just before writing input: later waits count only once the program has slept since. */
  markInput(): void;
}

/** A probe for the terminal whose session leader is `leaderPid`, or undefined off Linux. */
export function createInputWaitProbe(
  leaderPid: number,
  ttyPath: string,
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): InputWaitProbe | undefined {
  const syscalls = SYSCALLS[arch];
  if (platform !== 'linux' || !syscalls || !ttyPath) return undefined;
  let marks: Map<number, number> | undefined;
  const inputWait = (): InputWait | undefined => {
    const group = foregroundGroup(leaderPid);
    if (group.length === 0) return undefined;
    let waiting: { pid: number; ms: number } | undefined;
    let cpuTicks = 0;
    for (const { pid, state, cpuTicks: ticks } of group) {
      if (state !== 'S') return undefined;
      cpuTicks += ticks;
      if (waiting !== undefined) continue;
      const ms = terminalWaitOf(pid, ttyPath, syscalls);
      if (ms !== undefined) waiting = { pid, ms };
    }
    if (waiting === undefined) return undefined;
    const mark = marks?.get(waiting.pid);
    if (mark !== undefined) {
      // The program must have slept since the input was written, or it has not read it yet.
      if (sleepCount(waiting.pid) <= mark) return undefined;
      marks = undefined;
    }
    return { waitMs: waiting.ms, cpuMs: cpuTicks * TICK_MS };
  };
  return {
    markInput() {
      const group = foregroundGroup(leaderPid);
      marks = new Map(group.map(({ pid }) => [pid, sleepCount(pid)]));
    },
    isWaiting: () => inputWait() !== undefined,
    inputWait,
    othersIdle: () => othersIdle(leaderPid),
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

function readStat(pid: number): ProcStat | undefined {
  const text = read(`/proc/${pid}/stat`);
  return text ? parseProcStat(text) : undefined;
}

/**
 * The foreground process group with each member's state and CPU time so far (user + system,
 * clock ticks): its leader and the session's descendants in it. Reads each /proc/<pid>/stat once.
 */
export function foregroundGroup(
  leaderPid: number,
): { pid: number; state: string; cpuTicks: number }[] {
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
  while (queue.length > 0 && group.size < MAX_PROCESSES) {
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

/** The first of the process's threads blocked reading the terminal: its wait's length (ms). */
function terminalWaitOf(
  pid: number,
  ttyPath: string,
  syscalls: Record<number, WaitKind>,
): number | undefined {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`).slice(0, MAX_THREADS);
  } catch {
    return undefined;
  }
  for (const tid of threads) {
    const syscall = read(`/proc/${pid}/task/${tid}/syscall`);
    if (!syscall) continue;
    // Runtimes park helper threads in endless waits (node's platform thread sits in epoll with no
    // timeout), so only the main thread's polling counts; a blocking read counts on any thread.
    const ms = terminalWaitMs(syscall, { pid, ttyPath, syscalls, pollCounts: tid === String(pid) });
    if (ms !== undefined) return ms;
  }
  return undefined;
}

export interface WaitContext {
  readonly pid: number;
  readonly ttyPath: string;
  readonly syscalls: Record<number, WaitKind>;
  /** Whether a poll/select/epoll wait counts (main thread only), besides a blocking read. */
  readonly pollCounts: boolean;
  readonly readMemory?: (pid: number, address: bigint, length: number) => Buffer | undefined;
  readonly fdTarget?: (pid: number, fd: number) => string | undefined;
}

/** Interprets one /proc/<pid>/task/<tid>/syscall line ("nr arg0 … arg5 sp pc"). */
export function isTerminalWait(line: string, ctx: WaitContext): boolean {
  return terminalWaitMs(line, ctx) !== undefined;
}

/**
 * How long the wait in one syscall line may last when it is a wait for terminal input:
 * Infinity for a read or a wait without a timeout, else its timeout in ms (at least
 * LONG_WAIT_MS); undefined when the line is no such wait.
 */
export function terminalWaitMs(line: string, ctx: WaitContext): number | undefined {
  const parts = line.trim().split(' ');
  const wait = ctx.syscalls[Number(parts[0])];
  if (!wait || parts.length < 7) return undefined;
  const args = parts.slice(1, 7).map((hex) => BigInt(hex));
  const fdTarget = ctx.fdTarget ?? fdPath;
  const isTerminal = (fd: number) => {
    const target = fdTarget(ctx.pid, fd);
    return target === ctx.ttyPath || target === '/dev/tty';
  };
  if (wait.kind === 'read')
    return isTerminal(Number(args[0])) ? Number.POSITIVE_INFINITY : undefined;
  if (!ctx.pollCounts || !isTerminal(0)) return undefined;
  const arg = args[wait.timeoutArg] as bigint;
  const timeout = timeoutMs(arg, wait.timeoutIs, ctx.pid, ctx.readMemory ?? readProcessMemory);
  return timeout !== undefined && timeout >= LONG_WAIT_MS ? timeout : undefined;
}

function timeoutMs(
  arg: bigint,
  is: 'ms' | 'timespec' | 'timeval',
  pid: number,
  readMemory: (pid: number, address: bigint, length: number) => Buffer | undefined,
): number | undefined {
  if (is === 'ms') {
    const ms = BigInt.asIntN(32, arg);
    return ms < 0n ? Number.POSITIVE_INFINITY : Number(ms);
  }
  if (arg === 0n) return Number.POSITIVE_INFINITY;
  const mem = readMemory(pid, arg, 16);
  if (!mem || mem.length < 16) return undefined;
  const seconds = Number(mem.readBigInt64LE(0));
  const fraction = Number(mem.readBigInt64LE(8));
  return seconds * 1000 + (is === 'timespec' ? fraction / 1e6 : fraction / 1e3);
}

function fdPath(pid: number, fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`);
  } catch {
    return undefined;
  }
}

function readProcessMemory(pid: number, address: bigint, length: number): Buffer | undefined {
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
}
