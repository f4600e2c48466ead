/**
 * The processes of a terminal's session, read from /proc (Linux): what a test checks is gone
 * after terminal_close or a shutdown. The PTY child is a session leader, so its pid is the
 * session id of everything it started that did not leave with setsid.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseProcStat } from '../../src/pty/proc-stat.js';
import { isAlive, sleep } from './mcp-harness.js';

/** Pids of every live (non-zombie) process whose session id is `sid`. */
export function sessionPids(sid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = parseProcStat(readFileSync(join('/proc', entry, 'stat'), 'latin1'));
      if (stat && stat.session === sid && stat.state !== 'Z') pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
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

export const linuxOnly = process.platform === 'linux' ? false : 'reads /proc';
