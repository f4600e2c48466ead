/**
 * Whether the rest of a terminal's session could still print: every process outside the
 * foreground process group is stopped, a zombie, or an ancestor of the foreground group (the
 * shell waiting for its foreground job). For waits that end early when the program asks for
 * input (session/early-stop.ts). Linux only (/proc).
 * @see spec/tools.md (terminal_input: early stop)
 */
import { foregroundGroup } from './foreground-group.js';
import { readProcStat } from './proc-stat.js';
import { scanProcSync } from './processes.js';

/**
 * Whether every process of the session led by `leaderPid` outside its foreground process group
 * is stopped (T, t), a zombie (a scan leaves those out) or an ancestor of a foreground process.
 * False when the scan may have missed a process or there is no foreground group.
 */
export function othersIdle(leaderPid: number): boolean {
  const tpgid = readProcStat(leaderPid)?.tpgid ?? -1;
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
    let pid = readProcStat(proc.pid)?.ppid;
    while (pid !== undefined && inSession.has(pid) && !ancestors.has(pid)) {
      ancestors.add(pid);
      pid = readProcStat(pid)?.ppid;
    }
  }
  return scan.procs.every(
    (p) => p.pgrp === tpgid || p.state === 'T' || p.state === 't' || ancestors.has(p.pid),
  );
}
