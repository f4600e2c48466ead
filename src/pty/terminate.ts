/**
 * Ends every process of a terminal's session, all its process groups included, the way a
 * terminal's hang-up starts it: SIGHUP (and SIGCONT) to the session leader and to the terminal's
 * foreground process group only, as the kernel delivers a hang-up (an interactive shell then
 * forwards it to its jobs, and the leader's exit hangs up the foreground group once more), so
 * programs run their exit and hang-up traps undisturbed. Then, after a grace that ends as soon
 * as nothing is left, SIGTERM to every process and group still there, and after a second grace
 * a kill sweep that kills each process the moment a scan sees it, scan after scan, until a scan
 * that could not have missed one finds none. Processes that keep forking into new process groups
 * ("hopping") cannot outrun it, since they never leave the session. Returns as soon as nothing
 * is left, not after a fixed delay. The only place that signals processes, and the only use of
 * process.kill: other modules ask isProcessAlive(). (The `ps` process table is assembled here,
 * not in processes.ts, so that module need not import this one, which imports it.) See
 * spec/tools.md, Guarantees 2 and 3.
 */
import {
  linuxProcessTable,
  type ProcessInfo,
  type ProcessTable,
  type ScanVisitor,
  type SessionScan,
  scanPs,
  scanSessionSync,
} from './processes.js';

export interface TerminateOptions {
  /** How long the hang-up alone may take (exit traps run meanwhile) before SIGTERM to all. */
  readonly hangupGraceMs: number;
  readonly termGraceMs: number;
  /** How long the kill sweep may go on before giving up and reporting survivors. */
  readonly killGraceMs: number;
}

export interface TerminateDeps {
  readonly table: ProcessTable;
  readonly kill: (pid: number, signal: NodeJS.Signals) => void;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
}

export interface TerminateReport {
  /** Signals that had to be sent, in order. */
  readonly signals: NodeJS.Signals[];
  /** Pids still alive when it gave up (empty on success). */
  readonly survivors: number[];
}

const POLL_MS = 4;
/**
 * How long the hang-up waits for the leader before it hangs up the foreground group itself:
 * long enough for a shell to take its SIGHUP and exit, which hangs that group up once.
 */
const LEADER_GRACE_MS = 250;
const RESCAN_MS = 24;
/**
 * An incomplete scan (processes kept appearing while it ran) may have missed one; after this many
 * empty scans in a row the session counts as empty all the same.
 */
const EMPTY_SCANS_TRUSTED = 3;
/** Bound of the synchronous sweep at server exit, per call, so the exit stays within 1 s. */
export const SYNC_SWEEP_MS = 200;

/**
 * Whether `pid` exists, by signal 0: true also for a process of another user (EPERM) and for a
 * zombie (the process table tells zombies apart where it can).
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Processes from `ps` (macOS), liveness by signal 0. */
const psProcessTable: ProcessTable = { scan: scanPs, isAlive: isProcessAlive };

/** /proc on Linux, `ps` elsewhere. */
const defaultProcessTable: ProcessTable =
  process.platform === 'linux' ? linuxProcessTable : psProcessTable;

export const defaultTerminateDeps: TerminateDeps = {
  table: defaultProcessTable,
  kill: (pid, signal) => process.kill(pid, signal),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  now: () => performance.now(),
};

/** What scans of one session have shown so far: whether an empty one can be trusted. */
class SessionView {
  private _emptyScans = 0;

  /** Takes in a scan; true when it shows that nothing of the session is left. */
  isEmpty(scan: SessionScan): boolean {
    if (scan.procs.length > 0) {
      this._emptyScans = 0;
      return false;
    }
    this._emptyScans += 1;
    return scan.complete || this._emptyScans >= EMPTY_SCANS_TRUSTED;
  }
}

export async function terminateSession(
  sid: number,
  ttyPath: string,
  options: TerminateOptions,
  deps: TerminateDeps = defaultTerminateDeps,
): Promise<TerminateReport> {
  const signals: NodeJS.Signals[] = [];
  const view = new SessionView();
  const scan = (visit?: ScanVisitor) => deps.table.scan(sid, ttyPath, visit);
  const first = await scan();
  let left = { procs: first.procs, isEmpty: view.isEmpty(first) };
  if (left.isEmpty) return { signals, survivors: [] };
  signals.push('SIGHUP');
  // The hang-up itself: the leader first, as the kernel gives it.
  const hangupEnds = deps.now() + options.hangupGraceMs;
  signalLeader(sid, deps);
  const leaderMs = Math.min(LEADER_GRACE_MS, options.hangupGraceMs);
  left = await waitForExit(scan, view, left.procs, leaderMs, deps);
  if (!left.isEmpty && deps.table.isAlive(sid)) {
    // The leader carries on (it traps or ignores SIGHUP, or waits for its foreground command).
    hangUpForeground(sid, first.procs, left.procs, deps);
  }
  if (!left.isEmpty) {
    const restMs = Math.max(0, hangupEnds - deps.now());
    left = await waitForExit(scan, view, left.procs, restMs, deps);
  }
  if (left.isEmpty) return { signals, survivors: [] };
  signals.push('SIGTERM');
  signalAll(left.procs, 'SIGTERM', deps);
  left = await waitForExit(scan, view, left.procs, options.termGraceMs, deps);
  if (left.isEmpty) return { signals, survivors: [] };
  signals.push('SIGKILL');
  return { signals, survivors: await sweep(scan, view, options.killGraceMs, deps) };
}

/**
 * A terminal's hang-up, as the kernel delivers it: SIGHUP and SIGCONT to the session leader.
 * When the leader exits, the kernel itself sends SIGHUP to the terminal's foreground process
 * group (an interactive shell has sent it to its jobs already): those processes get it once. A
 * second SIGHUP would end a shell that is still running its exit trap for the first (bash exits
 * at once then), and the commands the trap runs, which is how a lock is left behind.
 */
function signalLeader(sid: number, deps: TerminateDeps) {
  if (sid <= 1 || sid === process.pid) return;
  trySignal(sid, 'SIGHUP', deps);
  trySignal(sid, 'SIGCONT', deps);
}

/**
 * SIGHUP and SIGCONT to each process of the terminal's foreground process group but the leader,
 * when the leader is still there after LEADER_GRACE_MS: the kernel would send them at its exit,
 * which the leader may be waiting on (a shell reading its start-up files runs their commands in
 * its own group, in the foreground, and waits for each one). Only processes that were there at
 * the hang-up (`before`): those forked since are the commands of traps running for it.
 */
function hangUpForeground(
  sid: number,
  before: readonly ProcessInfo[],
  procs: readonly ProcessInfo[],
  deps: TerminateDeps,
) {
  const there = new Set(before.map((p) => p.pid));
  const leader = procs.find((p) => p.pid === sid);
  const tpgid = leader?.tpgid ?? procs.find((p) => p.tpgid !== undefined)?.tpgid;
  // Without a foreground group the scan can read (`ps`), the leader's group stands for it.
  const foreground = tpgid !== undefined && tpgid > 1 ? tpgid : (leader?.pgrp ?? sid);
  for (const p of procs) {
    if (p.pgrp !== foreground || p.pid === sid || !there.has(p.pid)) continue;
    if (p.pid <= 1 || p.pid === process.pid) continue;
    trySignal(p.pid, 'SIGHUP', deps);
    trySignal(p.pid, 'SIGCONT', deps);
  }
}

/** Signals each process group once and each process, then wakes stopped ones so they can act. */
function signalAll(procs: readonly ProcessInfo[], signal: NodeJS.Signals, deps: TerminateDeps) {
  const groups = new Set<number>();
  for (const p of procs) {
    if (p.pgrp > 1 && p.pgrp !== process.pid) groups.add(p.pgrp);
  }
  for (const pgrp of groups) trySignal(-pgrp, signal, deps);
  for (const p of procs) {
    if (p.pid > 1 && p.pid !== process.pid) trySignal(p.pid, signal, deps);
  }
  if (procs.some((p) => p.state === 'T' || p.state === 't')) {
    for (const pgrp of groups) trySignal(-pgrp, 'SIGCONT', deps);
  }
}

function trySignal(target: number, signal: NodeJS.Signals, deps: TerminateDeps) {
  try {
    deps.kill(target, signal);
  } catch {
    // ESRCH: already gone; EPERM: not ours to signal (it changed user), nothing more to do.
  }
}

/**
 * A visitor that SIGKILLs each process a scan sees, its process group first: a child it has just
 * forked is still in that group until it moves out, and a pending SIGKILL aborts a fork in
 * progress. Killing at once (rather than stopping first) is as final: the process never runs
 * user code again. The session id of every visited process is the terminal's, and a process
 * group never spans sessions, so the group belongs to the session too.
 */
function killOnSight(deps: TerminateDeps): ScanVisitor {
  const groups = new Set<number>();
  return (p) => {
    if (p.pgrp > 1 && p.pgrp !== process.pid && !groups.has(p.pgrp)) {
      groups.add(p.pgrp);
      trySignal(-p.pgrp, 'SIGKILL', deps);
    }
    if (p.pid > 1 && p.pid !== process.pid) trySignal(p.pid, 'SIGKILL', deps);
  };
}

async function waitForExit(
  scan: () => Promise<SessionScan>,
  view: SessionView,
  procs: ProcessInfo[],
  graceMs: number,
  deps: TerminateDeps,
): Promise<{ procs: ProcessInfo[]; isEmpty: boolean }> {
  const deadline = deps.now() + graceMs;
  let lastScan = deps.now();
  let current = procs;
  for (;;) {
    await deps.sleep(POLL_MS);
    current = current.filter((p) => deps.table.isAlive(p.pid));
    const now = deps.now();
    if (current.length === 0 || now - lastScan >= RESCAN_MS || now >= deadline) {
      // A rescan catches processes forked since the last one.
      const seen = await scan();
      lastScan = deps.now();
      current = seen.procs;
      const isEmpty = view.isEmpty(seen);
      if (isEmpty || now >= deadline) return { procs: current, isEmpty };
    }
  }
}

/** Kills on sight, scan after scan, until a scan shows nothing left or `limitMs` has passed. */
async function sweep(
  scan: (visit: ScanVisitor) => Promise<SessionScan>,
  view: SessionView,
  limitMs: number,
  deps: TerminateDeps,
): Promise<number[]> {
  const deadline = deps.now() + limitMs;
  for (;;) {
    const seen = await scan(killOnSight(deps));
    if (view.isEmpty(seen)) return [];
    if (deps.now() >= deadline) return seen.procs.map((p) => p.pid);
    await deps.sleep(POLL_MS);
  }
}

/** Blocks the thread for `ms` (no event loop at process exit). */
function pauseSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Last resort when the server itself is exiting and cannot wait: the kill sweep, synchronously,
 * over every session (on Linux, /proc; elsewhere, `ps`), for at most `limitMs` in all. Returns
 * the pids still alive at that bound, for the caller to log.
 */
export function killSessionsSync(
  sessions: readonly { readonly sid: number; readonly ttyPath: string }[],
  limitMs = SYNC_SWEEP_MS,
  deps: TerminateDeps = defaultTerminateDeps,
): number[] {
  const deadline = deps.now() + limitMs;
  const survivors: number[] = [];
  for (const { sid, ttyPath } of sessions) {
    const view = new SessionView();
    for (;;) {
      const seen = scanSessionSync(sid, ttyPath, killOnSight(deps));
      if (view.isEmpty(seen)) break;
      if (deps.now() >= deadline) {
        survivors.push(...seen.procs.map((p) => p.pid));
        break;
      }
      pauseSync(1);
    }
  }
  return survivors;
}
