/**
 * The sessions' private directories under the system's temporary directory (shell history,
 * shell start-up files, transcript files, which may go to a directory of their own) name the
 * server that made them, by pid, in a file `server`. A server
 * removes its own on every way out it can catch (close, shutdown, exit); one killed outright
 * (SIGKILL, a crash) cannot, and the next server to start removes the directories whose server
 * is gone. Only the user's own directories, and never one whose server may still run (a pid
 * that is alive, whoever it now is, keeps its directory).
 * @see spec/tools.md (Shell history)
 */
import { lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive } from '../pty/terminate.js';

const SERVER_FILE = 'server';
const PRIVATE_DIR = /^agent-tty-(history|shell|transcript)-/;

/** Writes this server's pid into a private directory it has just made; never throws. */
export function markPrivateDir(dir: string): void {
  try {
    writeFileSync(join(dir, SERVER_FILE), `${process.pid}\n`, { mode: 0o600, flag: 'wx' });
  } catch {
    // Unmarked, the directory is only ever removed by this server.
  }
}

/** The pid a private directory names, or undefined when it names none. */
function serverOf(dir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dir, SERVER_FILE), 'latin1').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Removes the private directories in `tmp` that this user owns and whose server is gone;
 * returns their names. Never throws.
 */
export function removeOrphanedPrivateDirs(
  tmp: string = tmpdir(),
  isAlive: (pid: number) => boolean = isProcessAlive,
): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(tmp);
  } catch {
    return removed;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    if (!PRIVATE_DIR.test(name)) continue;
    const dir = join(tmp, name);
    try {
      const stat = lstatSync(dir);
      if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) continue;
      const pid = serverOf(dir);
      if (pid === undefined || pid === process.pid || isAlive(pid)) continue;
      rmSync(dir, { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
  return removed;
}
