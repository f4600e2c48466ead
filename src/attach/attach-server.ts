/**
 * The server's end of `agent-tty attach`: a Unix socket at `<socket dir>/<pid>.sock` (0600, in the
 * user's 0700 directory, socket-dir.ts) that says hello (naming, on Linux, the proof a client
 * shows its pid with), refuses a request from a program running in an agent-tty session (peer.ts),
 * and answers `list` with this server's sessions and `attach` with a Watcher. No network listener. The socket is removed when the server closes it
 * and, synchronously, on any exit of the process (serve.ts). Bounded: at most MAX_CONNECTIONS
 * connections, a first request within REQUEST_TIMEOUT_MS, lines of at most
 * MAX_CLIENT_LINE_BYTES; a connection past a bound is told why in one line and closed.
 * @see spec/attach.md
 */
import { chmodSync, lstatSync, statSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { readProcStat } from '../pty/proc-stat.js';
import type { SessionRegistry } from '../session/registry.js';
import { LineSplitter } from '../shared/line-splitter.js';
import type { Logger } from '../shared/log.js';
import { canIdentifyPeers, PeerProof, placePeer } from './peer.js';
import {
  type ClientMessage,
  encode,
  MAX_CLIENT_LINE_BYTES,
  parseClientMessage,
  type ServerMessage,
} from './protocol.js';
import {
  ensureSocketDir,
  listSockets,
  MAX_SOCKET_PATH_BYTES,
  SOCKET_DIR_ENV,
  SocketDirError,
  socketPath,
} from './socket-dir.js';
import { Watcher } from './watcher.js';

export const MAX_CONNECTIONS = 32;
export const REQUEST_TIMEOUT_MS = 5000;
/** How long a connection refused at the limit may stay to read its one line. */
const REFUSED_LINGER_MS = 1000;
/** How long the answer to "do other servers listen here?" (the attach command's form) is reused. */
const OTHERS_FRESH_MS = 1000;

export interface AttachServerDeps {
  readonly registry: SessionRegistry;
  readonly logger: Logger;
  readonly dir: string;
  /** The MCP client's name, once it has said it ('' before). */
  readonly clientName: () => string;
  /** Whether to check which process connects (attach/peer.ts); by default where /proc allows. */
  readonly identifyPeers?: boolean;
}

export class AttachServer {
  private readonly _watchers = new Set<Watcher>();
  private _connections = 0;
  private _refusing = 0;
  private readonly _startedAt = new Date().toISOString();
  private _closed = false;
  private _others = false;
  private _othersCheckedAt: number | undefined;
  private readonly _identifyPeers: boolean;

  private constructor(
    readonly path: string,
    private readonly _server: Server,
    private readonly _deps: AttachServerDeps,
  ) {
    this._identifyPeers = _deps.identifyPeers ?? canIdentifyPeers();
  }

  /** Listens on this process's socket; throws (SocketDirError or the errno) when it cannot. */
  static async listen(deps: AttachServerDeps): Promise<AttachServer> {
    ensureSocketDir(deps.dir);
    const path = socketPath(deps.dir, process.pid);
    if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
      throw new SocketDirError(
        `the socket path ${path} is too long for this system; set ${SOCKET_DIR_ENV} to a shorter directory`,
      );
    }
    removeStale(path);
    const server = createServer();
    const attach = new AttachServer(path, server, deps);
    server.on('connection', (socket) => attach._accept(socket));
    server.on('error', (err) => deps.logger.warn(`attach socket: ${err.message}`));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    try {
      chmodSync(path, 0o600);
    } catch (err) {
      server.close();
      throw err;
    }
    return attach;
  }

  /**
   * The command a person runs to attach to `sessionId`: `agent-tty attach t3`, or `t3@PID` while
   * another server's socket is in the directory (then a bare id could name either).
   */
  command(sessionId: string): string {
    // Listing the directory costs a few system calls a socket; terminal_list asks per session.
    const now = performance.now();
    if (this._othersCheckedAt === undefined || now - this._othersCheckedAt > OTHERS_FRESH_MS) {
      this._others = listSockets(this._deps.dir).some((s) => s.pid !== process.pid);
      this._othersCheckedAt = now;
    }
    return `agent-tty attach ${this._others ? `${sessionId}@${process.pid}` : sessionId}`;
  }

  get watchers(): number {
    return this._watchers.size;
  }

  /** Tells every watcher the server is going, stops listening and removes the socket. */
  async close(): Promise<void> {
    if (this._closed) return;
    this._closed = true;
    for (const watcher of [...this._watchers]) {
      watcher.end(
        'closed',
        `the agent-tty server (pid ${process.pid}) is shutting down; its sessions are closing`,
      );
    }
    // Not waiting for connections to end: a watcher that stops reading must not hold up the exit.
    this._server.close();
    this.removeSocketSync();
  }

  /** Removes the socket file now (for the process's exit handler). */
  removeSocketSync(): void {
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone.
    }
  }

  private _accept(socket: Socket): void {
    if (this._connections >= MAX_CONNECTIONS) {
      this._refuseBusy(socket);
      return;
    }
    this._connections++;
    socket.once('close', () => this._connections--);
    const splitter = new LineSplitter(MAX_CLIENT_LINE_BYTES);
    let watcher: Watcher | undefined;
    const timer = setTimeout(() => socket.destroy(), REQUEST_TIMEOUT_MS);
    let proof: PeerProof | undefined;
    const dropProof = () => {
      proof?.close();
      proof = undefined;
    };
    const refuse = (message: string) => {
      clearTimeout(timer);
      dropProof();
      if (watcher) watcher.end('error', message);
      else {
        socket.end(encode({ type: 'end', reason: 'error', message }));
      }
    };
    socket.on('error', () => clearTimeout(timer));
    socket.on('close', () => {
      clearTimeout(timer);
      dropProof();
    });
    if (this._identifyPeers) {
      try {
        proof = PeerProof.create(this._deps.dir);
      } catch (err) {
        socket.resume(); // read and drop what comes, so the line is not lost to a reset
        refuse(
          `agent-tty server ${process.pid} could not check which process is connecting (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); try again`,
        );
        return;
      }
    }
    socket.write(encode({ type: 'hello', ...(proof ? { proof: proof.path } : {}) }));
    socket.on('data', (chunk: Buffer) => {
      if (socket.destroyed || socket.writableEnded) return;
      splitter.push(chunk, (event) => {
        if (socket.destroyed || socket.writableEnded) return;
        if (event.kind === 'overlong') {
          refuse(
            `a message of ${event.bytes} bytes is over the ${MAX_CLIENT_LINE_BYTES}-byte limit`,
          );
          return;
        }
        const parsed = parseClientMessage(event.text);
        if (!parsed.ok) {
          refuse(`not an attach protocol message (${parsed.reason})`);
          return;
        }
        const message = parsed.message;
        if (watcher) {
          if (message.type === 'input') watcher.input(message.data);
          else if (message.type === 'size') watcher.resize(message.cols, message.rows);
          else refuse(`"${message.type}" is only a first request`);
          return;
        }
        clearTimeout(timer);
        const refusal = this._checkPeer(message, proof);
        dropProof();
        if (refusal !== undefined) {
          refuse(refusal);
          return;
        }
        if (message.type === 'list') {
          socket.end(encode(this._describe()));
        } else if (message.type === 'attach') {
          watcher = this._attach(socket, message);
        } else {
          refuse(`the first request is "list" or "attach", not "${message.type}"`);
        }
      });
      // A line past the limit is refused as it streams, not when (if ever) it ends.
      if (splitter.overflowing && !socket.writableEnded) {
        refuse(`a message is over the ${MAX_CLIENT_LINE_BYTES}-byte limit`);
      }
    });
  }

  /**
   * Why a first request is refused for the process it comes from (attach/peer.ts), or undefined:
   * attaching and listing are for a person at their own terminal, not for programs running in an
   * agent-tty session, and a client must show which process it is where the server can check.
   */
  private _checkPeer(request: ClientMessage, proof: PeerProof | undefined): string | undefined {
    if (!proof || (request.type !== 'list' && request.type !== 'attach')) return undefined;
    const { pid, proofFd } = request;
    if (pid === undefined || proofFd === undefined) {
      return 'refused: this connection did not show which process it comes from (agent-tty attach does, with the proof named in the hello line)';
    }
    // The server holds the file too: a client naming the server's pid shows nothing of itself.
    if (pid === process.pid || !proof.isHeldBy(pid, proofFd)) {
      return `refused: this connection did not show that it comes from process ${pid} (that process does not hold the proof file at descriptor ${proofFd})`;
    }
    const terminals = this._deps.registry.terminals();
    const place = placePeer(pid, {
      serverPid: process.pid,
      servers: new Set([process.pid, ...listSockets(this._deps.dir).map((s) => s.pid)]),
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

  /**
   * A connection past MAX_CONNECTIONS is told so in one line, not dropped: a dropped connection
   * reads to the person like a server that died. What it sends is read and dropped until it
   * closes (closing with unread data would reset the connection and lose the line at the other
   * end), for at most REFUSED_LINGER_MS; past MAX_CONNECTIONS such refusals at once, the
   * connection is closed without a line.
   */
  private _refuseBusy(socket: Socket): void {
    socket.on('error', () => {});
    if (this._refusing >= MAX_CONNECTIONS) {
      socket.destroy();
      return;
    }
    this._refusing++;
    const timer = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
    socket.once('close', () => {
      clearTimeout(timer);
      this._refusing--;
    });
    socket.resume();
    socket.end(
      encode({
        type: 'end',
        reason: 'error',
        message: `agent-tty server ${process.pid} has ${MAX_CONNECTIONS} attach connections open, its limit; detach one and try again`,
      }),
    );
  }

  private _attach(
    socket: Socket,
    request: { sessionId: string; readOnly: boolean; cols: number; rows: number },
  ): Watcher | undefined {
    const session = this._deps.registry.find(request.sessionId);
    if (!session || session.isClosed) {
      const ids = this._deps.registry.list().map((s) => s.sessionId);
      const open = ids.length === 0 ? 'it has none open' : `its sessions are ${ids.join(', ')}`;
      socket.end(
        encode({
          type: 'end',
          reason: 'error',
          message: `no session ${request.sessionId} in agent-tty server ${process.pid}; ${open}`,
        }),
      );
      return undefined;
    }
    const watcher = new Watcher(socket, session, request.readOnly, request, (w) =>
      this._watchers.delete(w),
    );
    this._watchers.add(watcher);
    return watcher;
  }

  private _describe(): ServerMessage {
    const sessions = this._deps.registry.list().flatMap((info) => {
      const session = this._deps.registry.find(info.sessionId);
      if (!session || session.isClosed) return [];
      return [
        {
          sessionId: info.sessionId,
          command: info.command,
          status: info.status,
          cols: info.cols,
          rows: info.rows,
          quietMs: session.screen.quietMs(),
          watchers: session.presence.watchers,
        },
      ];
    });
    return {
      type: 'server',
      pid: process.pid,
      client: this._deps.clientName(),
      startedAt: this._startedAt,
      sessions,
    };
  }
}

/** The device number of terminal `path` with `sessionId`, as /proc/PID/stat gives tty_nr. */
function ttyEntry(path: string, sessionId: string): [number, string][] {
  if (path === '') return [];
  try {
    return [[statSync(path).rdev, sessionId]];
  } catch {
    return [];
  }
}

/** A socket left at this process's path (by an earlier process with the same pid) is removed. */
function removeStale(path: string): void {
  try {
    if (lstatSync(path).isSocket()) unlinkSync(path);
  } catch {
    // Nothing there.
  }
}
