/**
 * Ends every process of a terminal's session, all its process groups included: hangup, then
 * terminate after a grace period, then a kill sweep that kills each process the moment a scan
 * sees it, scan after scan, until a scan that could not have missed one finds none. Processes
 * that keep forking into new process groups ("hopping") cannot outrun it, since they never leave
 * the session. Returns as soon as nothing is left, not after a fixed delay. The only place that
 * signals processes, and the only use of process.kill: other modules ask isProcessAlive(). (The
 * `ps` process table is assembled here, not in processes.ts, so that module need not import this
 * one, which imports it.) See spec/tools.md, Guarantees 2 and 3.
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
export const psProcessTable: ProcessTable = { scan: scanPs, isAlive: isProcessAlive };

/** /proc on Linux, `ps` elsewhere. */
export const defaultProcessTable: ProcessTable =
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
  const steps: [NodeJS.Signals, number][] = [
    ['SIGHUP', options.hangupGraceMs],
    ['SIGTERM', options.termGraceMs],
  ];
  for (const [signal, graceMs] of steps) {
    if (left.isEmpty) return { signals, survivors: [] };
    signals.push(signal);
    signalAll(left.procs, signal, deps);
    left = await waitForExit(scan, view, left.procs, graceMs, deps);
  }
  if (left.isEmpty) return { signals, survivors: [] };
  signals.push('SIGKILL');
  return { signals, survivors: await sweep(scan, view, options.killGraceMs, deps) };
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
