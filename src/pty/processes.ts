/**
 * Which processes belong to a terminal's session. On Linux, /proc/<pid>/stat gives each
 * process's session id directly; elsewhere (macOS) `ps` lists the processes whose controlling
 * terminal is the session's pts. Zombies count as gone: they hold no resources but a pid.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  readonly pid: number;
  readonly pgrp: number;
  /** Single-letter state as ps/proc report it (R, S, D, T, Z ...). */
  readonly state: string;
}

export interface ProcessTable {
  /** Live (non-zombie) processes of the session led by `sid`, whose terminal is `ttyPath`. */
  list(sid: number, ttyPath: string): Promise<ProcessInfo[]>;
  /** Whether `pid` still exists and is not a zombie. */
  isAlive(pid: number): boolean;
}

/** Fields of /proc/<pid>/stat after the parenthesised command name, which may itself hold ") ". */
export function parseProcStat(
  text: string,
): { state: string; ppid: number; pgrp: number; session: number; tpgid: number } | undefined {
  const close = text.lastIndexOf(')');
  if (close === -1) return undefined;
  const fields = text.slice(close + 2).split(' ');
  if (fields.length < 6) return undefined;
  return {
    state: fields[0] as string,
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
    tpgid: Number(fields[5]),
  };
}

function readStat(pid: number) {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return undefined;
  }
}

const isGone = (state: string | undefined) => state === undefined || state === 'Z' || state === 'X';

/** Live processes of session `sid`, read synchronously from /proc (Linux only). */
export function listSessionSync(sid: number): ProcessInfo[] {
  const found: ProcessInfo[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    const code = entry.charCodeAt(0);
    if (code < 48 || code > 57) continue;
    const pid = Number(entry);
    const stat = readStat(pid);
    if (!stat || stat.session !== sid || isGone(stat.state)) continue;
    found.push({ pid, pgrp: stat.pgrp, state: stat.state });
  }
  return found;
}

export const linuxProcessTable: ProcessTable = {
  async list(sid) {
    return listSessionSync(sid);
  },
  isAlive(pid) {
    return !isGone(readStat(pid)?.state);
  },
};

function psList(): Promise<string> {
  return new Promise((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=,pgid=,tty=,stat='], { maxBuffer: 16 << 20 }, (err, out) =>
      resolve(err ? '' : out),
    );
  });
}

export const psProcessTable: ProcessTable = {
  async list(sid, ttyPath) {
    const tty = ttyPath.replace(/^\/dev\//, '');
    const found: ProcessInfo[] = [];
    for (const line of (await psList()).split('\n')) {
      const [pid, pgrp, procTty, state] = line.trim().split(/\s+/);
      if (!pid || !pgrp || !state) continue;
      const inSession = procTty === tty || Number(pgrp) === sid || Number(pid) === sid;
      if (!inSession || state.startsWith('Z')) continue;
      found.push({ pid: Number(pid), pgrp: Number(pgrp), state: state.charAt(0) });
    }
    return found;
  },
  isAlive(pid) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
  },
};

export const defaultProcessTable: ProcessTable =
  process.platform === 'linux' ? linuxProcessTable : psProcessTable;
