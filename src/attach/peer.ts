/**
 * Who is at the other end of an attach connection (Linux, through /proc): attaching is for a
 * person at their own terminal, so a connection from a program running in an agent-tty session
 * is refused. Node cannot ask the kernel for a Unix socket's peer (SO_PEERCRED), so the client
 * proves which process it is: the server opens a file no one else has (created in the private
 * socket directory and removed at once) and names it to the client as /proc/SERVER/fd/N; the
 * client opens it and sends its pid and the descriptor it holds it at; the server checks that
 * /proc/PID/fd/FD is that very file. A client that names another process's pid fails the check
 * (that process does not hold the file). Then the process and its ancestors are looked up: one
 * that is an agent-tty server, belongs to the terminal session (session id) of a server's
 * program, or has one of this server's terminals as its controlling terminal, is inside.
 * @see spec/attach.md (Who may attach)
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { type ProcStat, readProcStat } from '../pty/proc-stat.js';

/** Most ancestors looked up; a deeper chain is refused rather than partly checked. */
export const MAX_ANCESTRY = 256;

/** The fields of /proc/PID/stat that tell where a process runs. */
export type PeerStat = Pick<ProcStat, 'pid' | 'ppid' | 'session' | 'ttyNr'>;

/** Whether this system lets the server check who connects (Linux with /proc). */
export function canIdentifyPeers(): boolean {
  return process.platform === 'linux' && readProcStat(process.pid) !== undefined;
}

/** A file only this connection's client is told of, which it proves its pid with. */
export class PeerProof {
  private _fd: number | undefined;

  private constructor(
    fd: number,
    private readonly _dev: number,
    private readonly _ino: number,
  ) {
    this._fd = fd;
  }

  /** Creates the file in `dir` (private to the user) and removes its name at once. */
  static create(dir: string): PeerProof {
    const path = join(dir, `${process.pid}.${randomBytes(16).toString('hex')}.proof`);
    const fd = openSync(path, 'wx', 0o600);
    try {
      unlinkSync(path);
      const { dev, ino } = fstatSync(fd);
      return new PeerProof(fd, dev, ino);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /** Where the client opens it. */
  get path(): string {
    return `/proc/${process.pid}/fd/${this._fd}`;
  }

  /** Whether process `pid` holds this file open at descriptor `fd`. */
  isHeldBy(pid: number, fd: number): boolean {
    if (this._fd === undefined) return false;
    try {
      const held = statSync(`/proc/${pid}/fd/${fd}`);
      return held.dev === this._dev && held.ino === this._ino;
    } catch {
      return false;
    }
  }

  close(): void {
    if (this._fd === undefined) return;
    closeSync(this._fd);
    this._fd = undefined;
  }
}

/** What the server knows of the agent-tty sessions on this machine. */
export interface SessionsAround {
  /** This server's pid. */
  readonly serverPid: number;
  /** Pids of agent-tty servers (this one and those whose sockets share its directory). */
  readonly servers: ReadonlySet<number>;
  /** This server's sessions by their session id (the program's pid). */
  readonly sessions: ReadonlyMap<number, string>;
  /** This server's sessions by their terminal's device number. */
  readonly terminals: ReadonlyMap<number, string>;
  readonly readStat: (pid: number) => PeerStat | undefined;
}

export type PeerPlace =
  | { readonly inside: false }
  | { readonly inside: true; readonly where: string }
  | { readonly inside: undefined; readonly why: string };

/**
 * Where process `pid` runs: inside an agent-tty session (and which), outside, or unknown (it is
 * gone, or its ancestry is longer than MAX_ANCESTRY).
 */
export function placePeer(pid: number, around: SessionsAround): PeerPlace {
  const leaders = new Map<number, number | undefined>();
  let child: PeerStat | undefined;
  let q = pid;
  for (let depth = 0; q > 0; depth++) {
    if (depth === MAX_ANCESTRY) {
      return { inside: undefined, why: `its ancestry is longer than ${MAX_ANCESTRY} processes` };
    }
    const stat = around.readStat(q);
    if (!stat) {
      // An ancestor hidden from this user, or gone: the chain ends here.
      return depth === 0 ? { inside: undefined, why: 'it is gone' } : { inside: false };
    }
    if (around.servers.has(stat.pid)) {
      const id = child && around.sessions.get(child.pid);
      return { inside: true, where: sessionName(around, stat.pid, id) };
    }
    const own = around.sessions.get(stat.session) ?? around.terminals.get(stat.ttyNr);
    if (own !== undefined)
      return { inside: true, where: sessionName(around, around.serverPid, own) };
    if (!leaders.has(stat.session)) leaders.set(stat.session, around.readStat(stat.session)?.ppid);
    const leaderParent = leaders.get(stat.session);
    if (leaderParent !== undefined && around.servers.has(leaderParent)) {
      return { inside: true, where: sessionName(around, leaderParent, undefined) };
    }
    child = stat;
    q = stat.ppid;
  }
  return { inside: false };
}

function sessionName(around: SessionsAround, server: number, id: string | undefined): string {
  const which = id === undefined ? 'a session' : `session ${id}`;
  return server === around.serverPid
    ? `${which} of this agent-tty server`
    : `${which} of agent-tty server ${server}`;
}
