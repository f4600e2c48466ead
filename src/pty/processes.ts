/**
 * Which processes belong to a terminal's session. On Linux, /proc/<pid>/stat gives each
 * process's session id directly; elsewhere (macOS) `ps` lists the processes whose controlling
 * terminal is the session's pts. Zombies count as gone: they hold no resources but a pid.
 * A scan also says whether it could have missed a process (see SessionScan.complete).
 */
import { execFile, execFileSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { parseProcStat } from './proc-stat.js';

export interface ProcessInfo {
  readonly pid: number;
  readonly pgrp: number;
  /** Single-letter state as ps/proc report it (R, S, D, T, Z ...). */
  readonly state: string;
  /**
   * The foreground process group of the process's controlling terminal, where the scan can tell
   * (/proc; -1 or 0: none); undefined from `ps`.
   */
  readonly tpgid?: number;
}

export interface SessionScan {
  /** Live (non-zombie) processes of the session, in the order the scan saw them. */
  readonly procs: ProcessInfo[];
  /**
   * Whether every process alive when the scan ended was seen. /proc is listed again after each
   * pass and new pids are read, until a listing brings none: a process forked while the scan ran
   * (by one that then exited before its turn) is not missed. False if processes kept appearing
   * for MAX_LISTINGS listings. `ps` takes one snapshot, so its scans are always complete.
   */
  readonly complete: boolean;
}

/** Called for each live process of the session as soon as a scan reads it. */
export type ScanVisitor = (proc: ProcessInfo) => void;

export interface ProcessTable {
  /** Live processes of the session led by `sid`, whose terminal is `ttyPath`. */
  scan(sid: number, ttyPath: string, visit?: ScanVisitor): Promise<SessionScan>;
  /** Whether `pid` still exists and is not a zombie. */
  isAlive(pid: number): boolean;
}

/** How many times one scan lists /proc while new pids keep appearing. */
const MAX_LISTINGS = 8;

/** Room for any /proc/<pid>/stat line (its command name is at most 64 bytes). */
const statBuffer = Buffer.alloc(1024);

/**
 * One /proc/<pid>/stat, or undefined once the process is gone. A plain open + read into a reused
 * buffer: readFileSync costs about four times as much on /proc, and a scan reads every process.
 */
function readStat(pid: number) {
  let fd: number | undefined;
  try {
    fd = openSync(`/proc/${pid}/stat`, 'r');
    const length = readSync(fd, statBuffer, 0, statBuffer.length, 0);
    return parseProcStat(statBuffer.toString('latin1', 0, length));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const isGone = (state: string | undefined) => state === undefined || state === 'Z' || state === 'X';

/**
 * Live processes of session `sid`, read synchronously from /proc (Linux only); `visit` reaches
 * each one right after its stat is read, before the scan reads the next.
 */
export function scanProcSync(sid: number, visit?: ScanVisitor): SessionScan {
  const procs: ProcessInfo[] = [];
  const listed = new Set<number>();
  for (let listing = 0; listing < MAX_LISTINGS; listing++) {
    let entries: string[];
    try {
      entries = readdirSync('/proc');
    } catch {
      return { procs, complete: listing > 0 };
    }
    let fresh = 0;
    for (const entry of entries) {
      const code = entry.charCodeAt(0);
      if (code < 48 || code > 57) continue;
      const pid = Number(entry);
      if (listed.has(pid)) continue;
      listed.add(pid);
      fresh += 1;
      const stat = readStat(pid);
      if (!stat || stat.session !== sid || isGone(stat.state)) continue;
      const proc = { pid, pgrp: stat.pgrp, state: stat.state, tpgid: stat.tpgid };
      visit?.(proc);
      procs.push(proc);
    }
    if (fresh === 0) return { procs, complete: true };
  }
  return { procs, complete: false };
}

/** Live processes of session `sid`, read synchronously from /proc (Linux only). */
export function listSessionSync(sid: number): ProcessInfo[] {
  return scanProcSync(sid).procs;
}

export const linuxProcessTable: ProcessTable = {
  async scan(sid, _ttyPath, visit) {
    return scanProcSync(sid, visit);
  },
  isAlive(pid) {
    return !isGone(readStat(pid)?.state);
  },
};

const PS_ARGS = ['-A', '-o', 'pid=,pgid=,tty=,stat='];

function psList(): Promise<string> {
  return new Promise((resolve) => {
    execFile('ps', PS_ARGS, { maxBuffer: 16 << 20 }, (err, out) => resolve(err ? '' : out));
  });
}

function psListSync(): string {
  try {
    return execFileSync('ps', PS_ARGS, { encoding: 'latin1', maxBuffer: 16 << 20 });
  } catch {
    return '';
  }
}

/** The session's processes in `ps` output: those on its terminal, in its leader's group, or it. */
export function parsePsSession(
  out: string,
  sid: number,
  ttyPath: string,
  visit?: ScanVisitor,
): SessionScan {
  const tty = ttyPath.replace(/^\/dev\//, '');
  const procs: ProcessInfo[] = [];
  for (const line of out.split('\n')) {
    const [pid, pgrp, procTty, state] = line.trim().split(/\s+/);
    if (!pid || !pgrp || !state) continue;
    const inSession = procTty === tty || Number(pgrp) === sid || Number(pid) === sid;
    if (!inSession || state.startsWith('Z')) continue;
    const proc = { pid: Number(pid), pgrp: Number(pgrp), state: state.charAt(0) };
    visit?.(proc);
    procs.push(proc);
  }
  return { procs, complete: true };
}

/** The session's processes, synchronously: /proc on Linux, `ps` elsewhere. */
export function scanSessionSync(sid: number, ttyPath: string, visit?: ScanVisitor): SessionScan {
  return process.platform === 'linux'
    ? scanProcSync(sid, visit)
    : parsePsSession(psListSync(), sid, ttyPath, visit);
}

/**
 * The session's processes from one `ps` listing (macOS). Its process table, which also needs a
 * liveness probe by signal, is put together in terminate.ts, the one place that signals.
 */
export async function scanPs(
  sid: number,
  ttyPath: string,
  visit?: ScanVisitor,
): Promise<SessionScan> {
  return parsePsSession(await psList(), sid, ttyPath, visit);
}
