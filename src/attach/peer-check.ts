/**
 * The server's check of who sends a first request (the facts and the search are in peer.ts):
 * attaching and listing are for a person at their own terminal, not for programs running in an
 * agent-tty session, and a client must show which process it is where the server can check.
 * @see spec/attach.md (Who may attach)
 */
import { statSync } from 'node:fs';
import { readProcStat } from '../pty/proc-stat.js';
import { type PeerProof, placePeer } from './peer.js';
import type { ClientMessage } from './protocol.js';
import { listSockets } from './socket-dir.js';

/** One of this server's terminals: its session id (the program's pid) and its device path. */
export interface ServerTerminal {
  readonly sid: number;
  readonly ttyPath: string;
  readonly sessionId: string;
}

export interface PeerCheckDeps {
  /** The socket directory: every socket in it is another server's. */
  readonly dir: string;
  /** This server's terminals, open or still closing. */
  readonly terminals: () => readonly ServerTerminal[];
}

/**
 * Why `request` is refused for the process it comes from, or undefined. Without a proof (a
 * system where peers are not checked) and for requests other than list and attach, nothing is.
 */
export function checkPeer(
  request: ClientMessage,
  proof: PeerProof | undefined,
  deps: PeerCheckDeps,
): string | undefined {
  if (!proof || (request.type !== 'list' && request.type !== 'attach')) return undefined;
  const { pid, proofFd } = request;
  if (pid === undefined || proofFd === undefined) {
    return 'refused: this connection did not show which process it comes from (agent-tty attach does, with the proof named in the hello line)';
  }
  // The server holds the file too: a client naming the server's pid shows nothing of itself.
  if (pid === process.pid || !proof.isHeldBy(pid, proofFd)) {
    return `refused: this connection did not show that it comes from process ${pid} (that process does not hold the proof file at descriptor ${proofFd})`;
  }
  const terminals = deps.terminals();
  const place = placePeer(pid, {
    serverPid: process.pid,
    servers: new Set([process.pid, ...listSockets(deps.dir).map((s) => s.pid)]),
    sessions: new Map(terminals.map((t) => [t.sid, t.sessionId])),
    terminals: new Map(terminals.flatMap((t) => ttyEntry(t.ttyPath, t.sessionId))),
    readStat: readProcStat,
  });
  if (place.inside === true) {
    return `refused: process ${pid} runs in ${place.where}; agent-tty attach is for a person at their own terminal, not for programs the agent runs`;
  }
  if (place.inside === undefined) {
    return `refused: could not tell where process ${pid} runs (${place.why})`;
  }
  return undefined;
}

/** The device number of terminal `path` with `sessionId`, as /proc/PID/stat gives tty_nr. */
export function ttyEntry(path: string, sessionId: string): [number, string][] {
  if (path === '') return [];
  try {
    return [[statSync(path).rdev, sessionId]];
  } catch {
    return [];
  }
}
