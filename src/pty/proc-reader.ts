/**
 * /proc as the input-wait probe reads it (Linux): a thread's blocked syscall, a process's threads,
 * memory and descriptors, and the Unix-domain sockets of its network namespace. What it reads is
 * judged elsewhere (thread-wait.ts, wake-sources.ts); tests supply their own ProcReader.
 * @see spec/guarantees.md (Settlement: the input-wait signal)
 */
import {
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  statSync,
} from 'node:fs';
import type { FdReader } from './wake-sources.js';

/** What a thread's wait is read from: /proc, or a test. */
export interface ProcReader extends FdReader {
  /** The thread's syscall line; 'denied' when the user may not read it, undefined when gone. */
  syscall(pid: number, tid: number): string | 'denied' | undefined;
  /** The process's thread ids; undefined when gone. */
  threads(pid: number): number[] | undefined;
  readMemory(pid: number, address: bigint, length: number): Buffer | undefined;
}

/** Most descriptors of one process that are read. */
const MAX_FDS = 4096;

/** The text of a /proc file (latin1), or undefined when it cannot be read. */
export function readProcFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return undefined;
  }
}

/** /proc as the probe reads it. */
export const PROC_READER: ProcReader = {
  syscall(pid, tid) {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/syscall`, 'latin1');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return code === 'EACCES' || code === 'EPERM' ? 'denied' : undefined;
    }
  },
  threads(pid) {
    try {
      return readdirSync(`/proc/${pid}/task`).map(Number);
    } catch {
      return undefined;
    }
  },
  readMemory(pid, address, length) {
    let fd: number | undefined;
    try {
      fd = openSync(`/proc/${pid}/mem`, 'r');
      const buf = Buffer.alloc(length);
      const n = readSync(fd, buf, 0, length, address);
      return buf.subarray(0, n);
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  },
  fdTarget(pid, fd) {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      return undefined;
    }
  },
  fdTargets(pid) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      return undefined;
    }
    const targets = new Map<number, string>();
    for (const fd of fds.slice(0, MAX_FDS)) {
      const target = PROC_READER.fdTarget(pid, Number(fd));
      if (target !== undefined) targets.set(Number(fd), target);
    }
    return targets;
  },
  fdInfo: (pid, fd) => readProcFile(`/proc/${pid}/fdinfo/${fd}`),
  isFifo(pid, fd) {
    try {
      return statSync(`/proc/${pid}/fd/${fd}`).isFIFO();
    } catch {
      return false;
    }
  },
  unixSockets(pid) {
    const text = readProcFile(`/proc/${pid}/net/unix`);
    if (text === undefined) return undefined;
    const inodes = new Set<number>();
    // "Num RefCount Protocol Flags Type St Inode Path": the inode is the seventh field.
    for (const line of text.split('\n').slice(1)) {
      const inode = Number(line.trim().split(/\s+/)[6]);
      if (inode > 0) inodes.add(inode);
    }
    return inodes;
  },
};
