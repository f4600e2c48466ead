/**
 * The terminal's foreground process, when it is not the session's own program, for results to
 * show what is running (as tmux's `pane_current_command` does): the leader of the foreground
 * process group when that is another group (a shell's job, a pager a program started); else the
 * session leader's newest child in its group (a command a startup file or a script runs). Read
 * from /proc when a result is built (Linux only; undefined elsewhere).
 * @see spec/tools.md (Snapshots: foreground)
 */
import { readFileSync } from 'node:fs';
import { readProcStat } from './proc-stat.js';

export interface ForegroundProcess {
  readonly pid: number;
  /** Its command name (`/proc/<pid>/comm`: at most 15 bytes, as ps and tmux show it). */
  readonly command: string;
}

/** The foreground process of the terminal whose session leader is `leaderPid`, if another. */
export function foregroundProcess(
  leaderPid: number,
  platform: NodeJS.Platform = process.platform,
): ForegroundProcess | undefined {
  if (platform !== 'linux') return undefined;
  const tpgid = stat(leaderPid)?.tpgid;
  if (tpgid === undefined || !(tpgid > 0)) return undefined;
  let pid: number | undefined = tpgid;
  if (tpgid === leaderPid) {
    // The leader's own group: its newest child still in it, if any (children are listed oldest
    // first).
    const children = (read(`/proc/${leaderPid}/task/${leaderPid}/children`) ?? '')
      .split(' ')
      .filter((s) => s.trim() !== '')
      .map(Number);
    pid = children.reverse().find((child) => {
      const s = stat(child);
      return s !== undefined && s.pgrp === tpgid && s.state !== 'Z';
    });
  }
  if (pid === undefined) return undefined;
  const command = read(`/proc/${pid}/comm`)?.replace(/\n$/, '');
  return command ? { pid, command } : undefined;
}

const stat = readProcStat;

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
