/**
 * Who is in a terminal's foreground process group, read from /proc (Linux): its leader and the
 * session's descendants in it, each with its state and CPU time so far; or the session leader
 * alone when it is in that group. Whether they wait for input is group-wait.ts.
 * @see spec/guarantees.md (Settlement: the input-wait signal)
 */
import type { GroupMember } from './group-wait.js';
import { readProcFile } from './proc-reader.js';
import { type ProcStat, readProcStat } from './proc-stat.js';

/** A foreground group with this many processes or more is not judged (nor read in full). */
export const MAX_PROCESSES = 32;

/**
 * The foreground process group with each member's state and CPU time so far (user + system,
 * clock ticks): its leader and the session's descendants in it. Reads each /proc/<pid>/stat once.
 * Empty when the leader is gone, the terminal has no foreground group, or the group is too large.
 */
export function foregroundGroup(leaderPid: number): GroupMember[] {
  const stats = new Map<number, ProcStat | undefined>();
  const stat = (pid: number) => {
    if (!stats.has(pid)) stats.set(pid, readProcStat(pid));
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
    for (const child of childrenOf(pid)) queue.push(child);
  }
  return [...group].map(([pid, s]) => memberOf(pid, s));
}

/** The session leader alone, when it is in the terminal's foreground process group. */
export function leaderInForeground(leaderPid: number): GroupMember[] {
  const s = readProcStat(leaderPid);
  if (!s || s.state === 'Z' || !(s.tpgid > 0) || s.pgrp !== s.tpgid) return [];
  return [memberOf(leaderPid, s)];
}

/**
 * Whether the terminal's foreground process group is the session leader's own, or that of a copy
 * of the leader it forked (its child, with its command name): a shell between commands, or a
 * shell's command before it runs its program. Whether they read the terminal is the probe's.
 */
export function leaderOrCopyInForeground(leaderPid: number): boolean {
  const leader = readProcStat(leaderPid);
  if (!leader || leader.state === 'Z' || !(leader.tpgid > 0)) return false;
  if (leader.pgrp === leader.tpgid) return true;
  const head = readProcStat(leader.tpgid);
  return head !== undefined && head.ppid === leaderPid && head.comm === leader.comm;
}

function memberOf(pid: number, s: ProcStat): GroupMember {
  return { pid, state: s.state, cpuTicks: (s.utime || 0) + (s.stime || 0) };
}

/** The children of the process's main thread (/proc/<pid>/task/<pid>/children). */
export function childrenOf(pid: number): number[] {
  const text = readProcFile(`/proc/${pid}/task/${pid}/children`);
  if (!text) return [];
  return text
    .split(' ')
    .filter((s) => s.trim() !== '')
    .map(Number);
}
