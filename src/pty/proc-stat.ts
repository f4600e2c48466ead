/**
 * Parsing /proc/<pid>/stat (Linux; proc(5)): the process's fields by name. The command name sits
 * in parentheses and may itself hold spaces and ") ", so the fields are read after the last ")".
 * The one reader of that file (processes.ts reads it into a reused buffer, on purpose).
 */
import { readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat that agent-tty and its tests read. */
export interface ProcStat {
  readonly pid: number;
  /** The command name, without its parentheses. */
  readonly comm: string;
  /** Single-letter state (R, S, D, T, t, Z, X ...). */
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  readonly session: number;
  /** The controlling terminal's device number (0: none). */
  readonly ttyNr: number;
  /** The foreground process group of the controlling terminal (-1: none). */
  readonly tpgid: number;
  /** CPU time in user and in kernel mode, in clock ticks; NaN when the text stops before them. */
  readonly utime: number;
  readonly stime: number;
}

/** The fields of one /proc/<pid>/stat text, or undefined when it is not one. */
export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open === -1 || close < open) return undefined;
  const fields = text.slice(close + 2).split(' ');
  if (fields.length < 6) return undefined;
  return {
    pid: Number(text.slice(0, open)),
    comm: text.slice(open + 1, close),
    state: fields[0] as string,
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    session: Number(fields[3]),
    ttyNr: Number(fields[4]),
    tpgid: Number(fields[5]),
    utime: Number(fields[11]),
    stime: Number(fields[12]),
  };
}

/** /proc/PID/stat of a process now; undefined when it is gone, hidden or off Linux. */
export function readProcStat(pid: number): ProcStat | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return undefined;
  }
}
