/**
 * Files and directories agent-tty creates are private to the user whatever the umask: each new
 * directory is 0700 and each new file 0600, set on the new inode itself. Directories that already
 * exist keep their mode; a new file never follows or replaces anything already at its path.
 */
import { closeSync, constants, fchmodSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

const PRIVATE_DIR_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;

const { O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_NOFOLLOW, O_RDONLY, O_DIRECTORY } = constants;

/** Creates `dir` and its missing parents, each new one exactly 0700; existing ones are untouched. */
export function makePrivateDir(dir: string): void {
  const target = resolve(dir);
  // The mode is asked for at creation (a umask can only take bits away from it); the chmod
  // makes it exact under a umask that takes the owner's bits too.
  const first = mkdirSync(target, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first === undefined) return;
  let path = first;
  for (const part of ['', ...relative(first, target).split(sep).filter(Boolean)]) {
    path = join(path, part);
    const fd = openSync(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    try {
      fchmodSync(fd, PRIVATE_DIR_MODE);
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * Creates `path` as a new 0600 file open for writing (and reading, with `readToo`) and returns its
 * descriptor. Fails (EEXIST) when anything is already there, a symlink included, which is never
 * followed.
 */
export function createPrivateFile(path: string, readToo = false): number {
  const access = readToo ? O_RDWR : O_WRONLY;
  const fd = openSync(path, access | O_CREAT | O_EXCL | O_NOFOLLOW, PRIVATE_FILE_MODE);
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return fd;
}

/**
 * Writes `data` to `path`, which the user named: a new file is created 0600; an existing one is
 * replaced in place and keeps the mode the user gave it.
 */
export function writeUserFile(path: string, data: string): void {
  let fd: number;
  try {
    fd = createPrivateFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    writeFileSync(path, data);
    return;
  }
  try {
    writeFileSync(fd, data);
  } finally {
    closeSync(fd);
  }
}
