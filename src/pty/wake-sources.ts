/**
 * What could wake a process blocked on a set of descriptors: the terminal (a person or an agent
 * typing), a wake-up channel of its own (an eventfd, a signalfd, a disarmed timerfd, a pipe or
 * socket pair whose both ends it holds: how event loops let their threads and signal handlers
 * wake them), a pipe shared with another process of the same process group, or anything else
 * (a network socket, a pipe from elsewhere, a file watch, an armed timer), which can wake it
 * on its own. Reads /proc/<pid>/fd and fdinfo through the reader it is given.
 * @see spec/tools.md (Early stop)
 */

/** What the classification reads (from /proc, or from a test). */
export interface FdReader {
  /** The link text of /proc/<pid>/fd/<fd> (`/dev/pts/3`, `pipe:[123]`), undefined if gone. */
  fdTarget(pid: number, fd: number): string | undefined;
  /** Every descriptor of the process with its link text; undefined when it cannot be read. */
  fdTargets(pid: number): ReadonlyMap<number, string> | undefined;
  /** The text of /proc/<pid>/fdinfo/<fd>. */
  fdInfo(pid: number, fd: number): string | undefined;
  /** Whether /proc/<pid>/fd/<fd> is a named pipe. */
  isFifo(pid: number, fd: number): boolean;
  /** Inodes of the Unix-domain sockets in the process's network namespace. */
  unixSockets(pid: number): ReadonlySet<number> | undefined;
}

export type WakeSource =
  /** The session's terminal. */
  | { readonly kind: 'terminal' }
  /** A wake-up channel of the process itself; `timeoutMs` for an armed timer. */
  | { readonly kind: 'own'; readonly timeoutMs?: number }
  /** A pipe: its inode, so the caller can tell whether another process of the group holds it. */
  | { readonly kind: 'pipe'; readonly inode: number }
  /** Anything that can wake the process without the terminal. */
  | { readonly kind: 'outside' };

const BRACKETED = /^([a-z_]+):\[(\d+)\]$/;
const outside: WakeSource = { kind: 'outside' };

/** Classifies descriptors of one process, reading its descriptor table at most once. */
export class WakeSources {
  private _targets: ReadonlyMap<number, string> | undefined | null = null;
  private _unix: ReadonlySet<number> | undefined | null = null;

  constructor(
    private readonly _pid: number,
    private readonly _ttyPath: string,
    private readonly _reader: FdReader,
  ) {}

  /** What `fd` is as a wake-up source; `ino`, when known, must match the file it names. */
  classify(fd: number, ino?: number): WakeSource {
    const target = this._reader.fdTarget(this._pid, fd);
    if (target === undefined) return { kind: 'outside' };
    if (target === this._ttyPath || target === '/dev/tty') return { kind: 'terminal' };
    const bracketed = BRACKETED.exec(target);
    if (bracketed) {
      const inode = Number(bracketed[2]);
      if (ino !== undefined && ino !== inode) return { kind: 'outside' };
      if (bracketed[1] === 'pipe') {
        return this._holdsElsewhere(fd, target) ? { kind: 'own' } : { kind: 'pipe', inode };
      }
      if (bracketed[1] === 'socket') {
        return this._isOwnSocketPair(fd, inode) ? { kind: 'own' } : outside;
      }
      return outside;
    }
    if (target === 'anon_inode:[eventfd]' || target === 'anon_inode:[signalfd]') {
      return { kind: 'own' };
    }
    if (target === 'anon_inode:[timerfd]') return this._timer(fd);
    if (target.startsWith('/') && this._isOwnFifo(fd)) return { kind: 'own' };
    return outside;
  }

  /** Pipe inodes the process holds, for the group's check of a pipe wait. */
  pipeInodes(): Set<number> {
    const inodes = new Set<number>();
    for (const target of this._all()?.values() ?? []) {
      const m = BRACKETED.exec(target);
      if (m && m[1] === 'pipe') inodes.add(Number(m[2]));
    }
    return inodes;
  }

  private _all(): ReadonlyMap<number, string> | undefined {
    if (this._targets === null) this._targets = this._reader.fdTargets(this._pid);
    return this._targets;
  }

  /**
   * Whether the process holds `target` through a descriptor besides `fd`. pipe() and
   * socketpair() return neighbouring descriptors, so those are read first; the whole table only
   * when they do not tell.
   */
  private _holdsElsewhere(fd: number, target: string): boolean {
    for (const near of [fd + 1, fd - 1]) {
      if (near >= 0 && this._reader.fdTarget(this._pid, near) === target) return true;
    }
    for (const [other, t] of this._all() ?? []) if (other !== fd && t === target) return true;
    return false;
  }

  /**
   * A socket pair the process made for itself (python's asyncio wakes its loop through one):
   * both are Unix-domain sockets it holds, created together, so their inodes are adjacent.
   */
  private _isOwnSocketPair(fd: number, inode: number): boolean {
    const partner = [inode - 1, inode + 1].find((n) => this._holdsElsewhere(fd, `socket:[${n}]`));
    if (partner === undefined) return false;
    if (this._unix === null) this._unix = this._reader.unixSockets(this._pid);
    return this._unix?.has(inode) === true && this._unix.has(partner);
  }

  /** A timerfd: its own wake-up when disarmed; when armed, one at the time left on it. */
  private _timer(fd: number): WakeSource {
    const info = this._reader.fdInfo(this._pid, fd);
    const match = info ? /it_value:\s*\((\d+),\s*(\d+)\)/.exec(info) : null;
    if (!match) return outside;
    const ms = Number(match[1]) * 1000 + Number(match[2]) / 1e6;
    return ms === 0 ? { kind: 'own' } : { kind: 'own', timeoutMs: ms };
  }

  /**
   * A named pipe the process holds open for reading and writing (fish's universal-variable
   * notifier): a notification channel, not a stream it waits to read work from.
   */
  private _isOwnFifo(fd: number): boolean {
    const info = this._reader.fdInfo(this._pid, fd);
    const flags = info ? /^flags:\s*([0-7]+)/m.exec(info) : null;
    // O_ACCMODE is 3; O_RDWR is 2.
    if (!flags || (Number.parseInt(flags[1] as string, 8) & 3) !== 2) return false;
    return this._reader.isFifo(this._pid, fd);
  }
}
