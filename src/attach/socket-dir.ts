/**
 * Where attach sockets live and why only their user can reach them. Each server listens on
 * `<dir>/<pid>.sock`; `dir` is per user (`$AGENT_TTY_SOCKET_DIR`, or `agent-tty-<uid>` in the
 * temporary directory, as tmux does) and must be a real directory (never a symlink) owned by the
 * user with no permission bits for anyone else. It is created so (0700) when missing, and
 * refused, not repaired, when it is not: someone else may have planted it. A directory too long
 * for a socket path is refused too: the system would cut the path short, and the socket would
 * land outside the directory. So is a relative one: it would name a different directory in each
 * working directory, so a server and a person would not meet.
 * @see spec/attach.md (Trust model)
 */
import { lstatSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { makePrivateDir } from '../shared/private-files.js';

export const SOCKET_DIR_ENV = 'AGENT_TTY_SOCKET_DIR';

/** The directory refused, and why, in one line a person can act on. */
export class SocketDirError extends Error {}

/** Bytes a socket's path may have: the system's `sun_path` less its terminating NUL. */
export const MAX_SOCKET_PATH_BYTES = process.platform === 'linux' ? 107 : 103;
/** The longest socket name a process id gives (Linux pids go up to 4194304). */
const LONGEST_SOCKET_NAME = '4194304.sock';

function uid(): number {
  return process.getuid?.() ?? 0;
}

/** The user's socket directory. */
export function socketDir(env: Readonly<Record<string, string | undefined>>): string {
  const chosen = env[SOCKET_DIR_ENV];
  return chosen ? chosen : join(tmpdir(), `agent-tty-${uid()}`);
}

export function socketPath(dir: string, pid: number): string {
  return join(dir, `${pid}.sock`);
}

/** Checks `dir` as described above; throws SocketDirError naming what is wrong. */
export function checkSocketDir(dir: string): void {
  checkSocketDirPath(dir);
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(dir);
  } catch (err) {
    throw new SocketDirError(
      `the socket directory ${dir} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  if (stat.isSymbolicLink()) {
    throw new SocketDirError(
      `the socket directory ${dir} is a symbolic link, which agent-tty never follows; remove it`,
    );
  }
  if (!stat.isDirectory()) {
    throw new SocketDirError(`the socket directory ${dir} is not a directory; remove it`);
  }
  if (stat.uid !== uid()) {
    throw new SocketDirError(
      `the socket directory ${dir} belongs to user ${stat.uid}, not to you (${uid()}); remove it or set ${SOCKET_DIR_ENV}`,
    );
  }
  const mode = Number(stat.mode) & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new SocketDirError(
      `the socket directory ${dir} has mode ${mode.toString(8).padStart(4, '0')}, open to other users; it must be 0700 (chmod 700 ${dir})`,
    );
  }
}

/**
 * Refuses a relative directory (a server and a person in different working directories would
 * each find their own), and one whose sockets' paths would be cut short: the socket would be
 * created (or connected to) at the shortened path, outside the directory and its protection.
 */
export function checkSocketDirPath(dir: string): void {
  if (!isAbsolute(dir)) {
    throw new SocketDirError(
      `the socket directory ${dir} is a relative path, which names another directory in each working directory; set ${SOCKET_DIR_ENV} (or TMPDIR) to an absolute path`,
    );
  }
  const bytes = Buffer.byteLength(join(dir, LONGEST_SOCKET_NAME));
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new SocketDirError(
      `the socket directory ${dir} is too long for a socket path (${bytes} bytes with a socket's name, over the ${MAX_SOCKET_PATH_BYTES} this system allows); set ${SOCKET_DIR_ENV} to a shorter directory`,
    );
  }
}

/** Creates the directory 0700 when missing, then checks it. */
export function ensureSocketDir(dir: string): void {
  checkSocketDirPath(dir);
  try {
    makePrivateDir(dir);
  } catch (err) {
    // An existing symlink or file makes mkdir fail; the check says what is there.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new SocketDirError(
        `the socket directory ${dir} cannot be created (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
  }
  checkSocketDir(dir);
}

/** The servers' sockets in `dir` (user-owned sockets named <pid>.sock), by pid. */
export function listSockets(dir: string): { pid: number; path: string }[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const found: { pid: number; path: string }[] = [];
  for (const name of names) {
    const match = /^(\d+)\.sock$/.exec(name);
    if (!match) continue;
    const path = join(dir, name);
    try {
      const stat = lstatSync(path);
      if (stat.isSocket() && stat.uid === uid()) found.push({ pid: Number(match[1]), path });
    } catch {
      // Gone meanwhile.
    }
  }
  return found.sort((a, b) => a.pid - b.pid);
}
