/**
 * Ends every process of a terminal's session, all its process groups included: hangup, then
 * terminate after a grace period, then kill. Returns as soon as nothing is left, not after a
 * fixed delay. The only place that signals processes.
 */
import {
  defaultProcessTable,
  listSessionSync,
  type ProcessInfo,
  type ProcessTable,
} from './processes.js';

export interface TerminateOptions {
  readonly hangupGraceMs: number;
  readonly termGraceMs: number;
  /** How long to wait for SIGKILL to take effect before giving up. */
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

export const defaultTerminateDeps: TerminateDeps = {
  table: defaultProcessTable,
  kill: (pid, signal) => process.kill(pid, signal),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  now: () => performance.now(),
};

export async function terminateSession(
  sid: number,
  ttyPath: string,
  options: TerminateOptions,
  deps: TerminateDeps = defaultTerminateDeps,
): Promise<TerminateReport> {
  const signals: NodeJS.Signals[] = [];
  let procs = await deps.table.list(sid, ttyPath);
  const steps: [NodeJS.Signals, number][] = [
    ['SIGHUP', options.hangupGraceMs],
    ['SIGTERM', options.termGraceMs],
    ['SIGKILL', options.killGraceMs],
  ];
  for (const [signal, graceMs] of steps) {
    if (procs.length === 0) return { signals, survivors: [] };
    signals.push(signal);
    signalAll(procs, signal, deps);
    procs = await waitForExit(sid, ttyPath, procs, graceMs, deps);
  }
  return { signals, survivors: procs.map((p) => p.pid) };
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
  if (signal !== 'SIGKILL' && procs.some((p) => p.state === 'T' || p.state === 't')) {
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

async function waitForExit(
  sid: number,
  ttyPath: string,
  procs: ProcessInfo[],
  graceMs: number,
  deps: TerminateDeps,
): Promise<ProcessInfo[]> {
  const deadline = deps.now() + graceMs;
  let lastScan = deps.now();
  let current = procs;
  for (;;) {
    await deps.sleep(POLL_MS);
    current = current.filter((p) => deps.table.isAlive(p.pid));
    const now = deps.now();
    if (current.length === 0 || now - lastScan >= RESCAN_MS || now >= deadline) {
      // A rescan catches processes forked since the last one.
      current = await deps.table.list(sid, ttyPath);
      lastScan = deps.now();
      if (current.length === 0 || now >= deadline) return current;
    }
  }
}

/**
 * Last resort when the server itself is exiting and cannot wait: SIGKILL, synchronously, every
 * process of each session (on Linux, found in /proc; elsewhere, each leader's process group).
 */
export function killSessionsSync(sids: readonly number[]): void {
  for (const sid of sids) {
    const procs: ProcessInfo[] =
      process.platform === 'linux' ? listSessionSync(sid) : [{ pid: sid, pgrp: sid, state: 'S' }];
    signalAll(procs, 'SIGKILL', defaultTerminateDeps);
  }
}
