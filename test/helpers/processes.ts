/**
 * What /proc says about processes (Linux): whether one is alive, its children, the processes of a
 * terminal's session, CPU time and resident memory. The PTY child is a session leader, so its pid is the
 * session id of everything it started that did not leave with setsid.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { type ProcStat, parseProcStat } from '../../src/pty/proc-stat.js';
import { SYSCALLS } from '../../src/pty/wait-syscalls.js';
import { sleep } from './wait.js';

/** A node:test `skip` value for tests that read /proc. */
export const linuxOnly = process.platform === 'linux' ? false : 'reads /proc';

/** /proc/<pid>/stat, read by the server's own parser; throws when the process is gone. */
function readStat(pid: number | string): ProcStat {
  const stat = parseProcStat(readFileSync(join('/proc', String(pid), 'stat'), 'latin1'));
  if (!stat) throw new Error(`unreadable /proc/${pid}/stat`);
  return stat;
}

/** Whether a process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const state = readStat(pid).state;
    return state !== 'Z' && state !== 'X';
  } catch {
    return process.platform !== 'linux';
  }
}

/** Pids of every live (non-zombie) process whose session id is `sid`. */
export function sessionPids(sid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readStat(entry);
      if (stat.session === sid && stat.state !== 'Z') pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Pids of the processes whose parent is `pid`, zombies included. */
export function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readStat(entry).ppid === pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** Waits until none of `pids` is alive; returns those still alive at the deadline. */
export async function waitGone(pids: readonly number[], timeoutMs = 2000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(20);
    alive = alive.filter(isAlive);
  }
  return alive;
}

/** User plus system CPU time of `pid`, in clock ticks of 1/100 s. */
export function cpuTicks(pid: number): number {
  const stat = readStat(pid);
  return stat.utime + stat.stime;
}

/** Resident set size of `pid` in KiB, or undefined where /proc is absent. */
export function rssKiB(pid: number): number | undefined {
  return statusKiB(pid, 'VmRSS');
}

/** The most resident memory `pid` ever had (VmHWM) in KiB, or undefined where /proc is absent. */
export function peakRssKiB(pid: number): number | undefined {
  return statusKiB(pid, 'VmHWM');
}

function statusKiB(pid: number, field: string): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]);
  } catch {
    return undefined;
  }
}

/**
 * TCP ports `pid` listens on (IPv4 and IPv6), from its socket descriptors and /proc/net/tcp*;
 * empty once it is gone.
 */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        if (inode) inodes.add(inode);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    return [];
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines: string[];
    try {
      lines = readFileSync(table, 'utf8').split('\n').slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      const [local, state, inode] = [fields[1], fields[3], fields[9]];
      if (state !== '0A' || !inode || !inodes.has(inode) || !local) continue;
      ports.push(Number.parseInt(local.split(':').at(-1) ?? '', 16));
    }
  }
  return ports;
}

/**
 * Whether a process of the session led by `sid` is blocked in nanosleep or clock_nanosleep now
 * (its /proc/<pid>/syscall): a `sleep` has got there, so a wait for input can be ruled out
 * without waiting a guessed while.
 */
export function isAsleepInSession(sid: number): boolean {
  const table = SYSCALLS[process.arch] ?? {};
  return sessionPids(sid).some((pid) => {
    try {
      const nr = Number(readFileSync(`/proc/${pid}/syscall`, 'latin1').split(' ')[0]);
      return table[nr]?.kind === 'sleep';
    } catch {
      return false;
    }
  });
}
