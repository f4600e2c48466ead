/**
 * The server's end of `agent-tty attach`: a Unix socket at `<socket dir>/<pid>.sock` (0600, in the
 * user's 0700 directory, socket-dir.ts) whose connections (connection.ts, at most MAX_CONNECTIONS
 * of them, connection-limit.ts) are answered `list` with this server's sessions and `attach` with
 * a Watcher, once peer-check.ts lets the process that asks. No network listener. The socket is
 * removed when the server closes it and, synchronously, on any exit of the process (serve.ts).
 * @see spec/attach.md
 */
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { SessionRegistry } from '../session/registry.js';
import type { Logger } from '../shared/log.js';
import { type AttachRequest, serveConnection } from './connection.js';
import { ConnectionLimit } from './connection-limit.js';
import { OtherServers } from './other-servers.js';
import { canIdentifyPeers } from './peer.js';
import { checkPeer } from './peer-check.js';
import { encode, type ServerMessage } from './protocol.js';
import {
  ensureSocketDir,
  MAX_SOCKET_PATH_BYTES,
  SOCKET_DIR_ENV,
  SocketDirError,
  socketPath,
} from './socket-dir.js';
import { Watcher } from './watcher.js';

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
  private readonly _limit = new ConnectionLimit();
  private readonly _others: OtherServers;
  private readonly _startedAt = new Date().toISOString();
  private _closed = false;
  private readonly _identifyPeers: boolean;

  private constructor(
    readonly path: string,
    private readonly _server: Server,
    private readonly _deps: AttachServerDeps,
  ) {
    this._identifyPeers = _deps.identifyPeers ?? canIdentifyPeers();
    this._others = new OtherServers(_deps.dir);
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
    return this._others.command(sessionId);
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
    if (!this._limit.admit(socket)) return;
    const { registry, dir } = this._deps;
    serveConnection(socket, {
      proofDir: this._identifyPeers ? dir : undefined,
      checkPeer: (request, proof) =>
        checkPeer(request, proof, { dir, terminals: () => registry.terminals() }),
      describe: () => this._describe(),
      attach: (s, request) => this._attach(s, request),
    });
  }

  private _attach(socket: Socket, request: AttachRequest): Watcher | undefined {
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

/** A socket left at this process's path (by an earlier process with the same pid) is removed. */
function removeStale(path: string): void {
  try {
    if (lstatSync(path).isSocket()) unlinkSync(path);
  } catch {
    // Nothing there.
  }
}
