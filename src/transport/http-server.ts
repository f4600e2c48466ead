/**
 * MCP over Streamable HTTP (spec/http.md): one endpoint, /mcp, on Node's http server. Each
 * connection must send the token in time (http-connections.ts); each request passes, in order,
 * the Host and Origin check (403), the bearer token (401, slowed after failures) and the body
 * bound (413) before anything of it is parsed; then it goes to its MCP session
 * (http-sessions.ts), or gets 404 when that session is unknown so the client initializes again;
 * a session whose client leaves too much of its replies unread gets 429 or 503 and its streams
 * past twice that are closed (http-backpressure.ts). Refusals are logged as a summary (http-refusals.ts). Listener bounds: HTTP_LIMITS.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { type Clock, systemClock } from '../screen/settle.js';
import type { HttpAddress } from '../shared/http-address.js';
import type { Logger } from '../shared/log.js';
import { type AuthVerdict, createBearerCheck, FailureDelay } from './http-auth.js';
import { ReplyBacklog, type RouteKey, STANDALONE, watchReply } from './http-backpressure.js';
import { readBody } from './http-body.js';
import { ConnectionGate, type ConnectionLimits } from './http-connections.js';
import { allowedHosts, checkHostAndOrigin } from './http-origin.js';
import { RefusalLog, type RefusalReason } from './http-refusals.js';
import { asDiscover, refuse, unknownMethod } from './http-replies.js';
import { type McpEndpoint, McpSessions } from './http-sessions.js';
import { TRANSPORT_LIMITS } from './stdio-transport.js';
import type { TlsFiles } from './tls.js';

export interface HttpLimits extends ConnectionLimits {
  /** Largest request body: the stdio transport's line bound. */
  readonly maxBodyBytes: number;
  /** Time a client has to send its request headers, and its whole request. */
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  /** MCP sessions kept at once; past it the least recently used idle one ends. */
  readonly maxMcpSessions: number;
  /** An MCP session with nothing open and no request for this long ends (0 = never). */
  readonly mcpSessionIdleMs: number;
  /** Requests open at once on one MCP session (each SSE stream is one); past it, 429. */
  readonly maxOpenRequestsPerSession: number;
  /**
   * Reply bytes written but not sent (the client does not read) of one MCP session, past which its
   * new requests get 429; a write past twice it closes that reply's connection (http-backpressure.ts).
   */
  readonly maxUnsentBytesPerSession: number;
  /** The same for the whole server: 503 for MCP sessions with bytes unsent; twice it closes the largest. */
  readonly maxUnsentBytesPerServer: number;
}

export const HTTP_LIMITS: HttpLimits = Object.freeze({
  maxBodyBytes: TRANSPORT_LIMITS.maxLineBytes,
  maxProvenConnections: 64,
  maxUnprovenConnections: 64,
  proofDeadlineMs: 2000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  maxMcpSessions: 32,
  mcpSessionIdleMs: 3_600_000,
  maxOpenRequestsPerSession: 16,
  // The stdio transport's stdout backlog bound, per MCP session; four sessions' worth in all.
  maxUnsentBytesPerSession: TRANSPORT_LIMITS.maxStdoutBacklogBytes,
  maxUnsentBytesPerServer: 4 * TRANSPORT_LIMITS.maxStdoutBacklogBytes,
});

export const MCP_PATH = '/mcp';

/** Per request to an MCP session: the signal that its connection closed before the answer. */
const requestScope = new AsyncLocalStorage<AbortSignal>();

/**
 * For a handler running on behalf of an HTTP request: a signal that aborts when that request's
 * connection closes before its answer was sent in full (no one can read it any more).
 */
export function abandonedSignal(): AbortSignal | undefined {
  return requestScope.getStore();
}

export interface HttpServerOptions {
  readonly address: HttpAddress;
  readonly token: string;
  /** Serve HTTPS with this certificate and key (transport/tls.ts); plain HTTP when absent. */
  readonly tls?: TlsFiles | undefined;
  /** A new MCP server, one per MCP session, all over the same terminals. */
  readonly newEndpoint: () => McpEndpoint;
  readonly logger: Logger;
  readonly limits?: HttpLimits;
  /** The time of MCP session expiry, the proof deadline and the refusal log (tests fake it). */
  readonly clock?: Clock;
}

export class HttpMcpServer {
  private readonly _sessions: McpSessions;
  private readonly _failures = new FailureDelay();
  private readonly _checkBearer: ReturnType<typeof createBearerCheck>;
  private readonly _refusals: RefusalLog;
  private readonly _gate: ConnectionGate;
  private readonly _backlog: ReplyBacklog;
  /** Set once listening: with port 0, the port is known only then. */
  private _hosts: readonly string[] | undefined = [];
  private readonly _limits: HttpLimits;

  private constructor(
    private readonly _http: Server,
    options: HttpServerOptions,
  ) {
    this._limits = options.limits ?? HTTP_LIMITS;
    const clock = options.clock ?? systemClock;
    const backlog = new ReplyBacklog(this._limits);
    this._backlog = backlog;
    this._sessions = new McpSessions(
      options.newEndpoint,
      {
        max: this._limits.maxMcpSessions,
        maxOpen: this._limits.maxOpenRequestsPerSession,
        idleMs: this._limits.mcpSessionIdleMs,
      },
      options.logger,
      clock,
      {
        outgoing: (id, message, related) => backlog.outgoing(id, message, related),
        ended: (id) => backlog.forgetSession(id),
      },
    );
    this._checkBearer = createBearerCheck(options.token);
    this._refusals = new RefusalLog((line) => options.logger.warn(line), clock);
    this._gate = new ConnectionGate(this._limits, {
      clock,
      onDrop: (address, why) => this._refusals.record(address, why),
      afterIo: (fn) => setImmediate(fn),
    });
  }

  /** Listens at `options.address`; rejects with the system's error (EADDRINUSE…). */
  static async listen(options: HttpServerOptions): Promise<HttpMcpServer> {
    const limits = options.limits ?? HTTP_LIMITS;
    const timeouts: ServerOptions = {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // How often those two are checked; Node's default (30 s) would let a slow client stay 3x longer.
      connectionsCheckingInterval: 1000,
    };
    // A TLS handshake gets the time the headers get (Node's default is 120 s).
    const http = options.tls
      ? createHttpsServer({
          ...timeouts,
          ...options.tls,
          handshakeTimeout: limits.headersTimeoutMs,
        })
      : createServer(timeouts);
    const server = new HttpMcpServer(http, options);
    // The raw TCP connection, also under TLS: the proof deadline counts the handshake too.
    http.on('connection', (socket: Socket) => server._admit(socket));
    http.on('request', (req: IncomingMessage, res: ServerResponse) => {
      server._handle(req, res).catch((err: unknown) => {
        options.logger.warn(`HTTP request failed: ${(err as Error).message}`);
        refuse(res, 500, 'internal error');
      });
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(options.address.port, options.address.host, () => {
        http.off('error', reject);
        resolve();
      });
    });
    server._hosts = allowedHosts({ ...options.address, port: server.port });
    return server;
  }

  /** The port listened on (the one the system chose for port 0). */
  get port(): number {
    return (this._http.address() as AddressInfo).port;
  }

  /** Stops listening, ends every MCP session and drops every connection. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this._http.close(() => resolve()));
    await this._sessions.closeAll();
    this._http.closeAllConnections();
    await closed;
    this._refusals.flush();
  }

  private _admit(socket: Socket): void {
    const key = connectionKey(socket);
    if (key === undefined) return void socket.destroy();
    this._gate.admit(key, socket.remoteAddress ?? 'unknown', socket);
    socket.once('close', () => this._gate.closed(key, socket));
  }

  private _refuseRequest(req: IncomingMessage, reason: RefusalReason): void {
    this._refusals.record(req.socket.remoteAddress ?? 'unknown', reason);
  }

  private async _handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '';
    const key = connectionKey(req.socket);
    // A connection that has only ever been refused is never kept for another request.
    const isProven = key !== undefined && this._gate.isProven(key);
    if (!isProven) res.setHeader('connection', 'close');
    // Said to any other path: a client sent without the token looks for OAuth (/.well-known/…,
    // /register), and some show this body to the user.
    if (url.split('?')[0] !== MCP_PATH) {
      this._refuseRequest(req, 'path');
      return refuse(
        res,
        404,
        `not found: this server's one endpoint is ${MCP_PATH}, and it takes no OAuth: send the header Authorization: Bearer TOKEN`,
      );
    }
    const where = checkHostAndOrigin(this._hosts, req.headers.host, req.headers.origin);
    if (!where.ok) {
      this._refuseRequest(req, where.reason);
      return refuse(
        res,
        403,
        `forbidden: this server does not answer that ${where.reason === 'host' ? 'Host' : 'Origin'}`,
      );
    }
    const auth = this._checkBearer(req.headers.authorization, url);
    if (!auth.ok) return this._unauthorized(req, res, auth.reason);
    if (!isProven && key !== undefined) {
      if (this._gate.prove(key) === 'full') {
        this._refuseRequest(req, 'connections-full');
        req.resume();
        return refuse(
          res,
          503,
          `too many connections with the token open (at most ${this._limits.maxProvenConnections}); retry when one has closed`,
          { 'retry-after': '1' },
        );
      }
      res.removeHeader('connection');
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string' && req.method !== 'DELETE') {
      // A client that does not read its replies is not given more to hold (DELETE frees).
      const backlog = this._backlog.admit(sessionId);
      if (!backlog.ok) {
        req.resume();
        return refuse(
          res,
          backlog.status,
          backlog.status === 429
            ? `too many reply bytes of this MCP session not yet read (${backlog.unsent}; at most ${this._limits.maxUnsentBytesPerSession}); read the open streams, then retry`
            : `too many reply bytes of this server not yet read by its clients (at most ${this._limits.maxUnsentBytesPerServer}), ${backlog.unsent} of them this MCP session's; read the open streams, then retry`,
          { 'retry-after': '1' },
        );
      }
    }
    if (typeof sessionId === 'string') {
      // Counted from here, body and all: a client trickling bodies holds its streams as surely.
      if (!this._sessions.claim(sessionId)) {
        req.resume();
        return refuse(
          res,
          429,
          `too many requests open on this MCP session (at most ${this._limits.maxOpenRequestsPerSession}); retry when one has been answered`,
          { 'retry-after': '1' },
        );
      }
      res.once('close', () => this._sessions.release(sessionId));
    }
    if (req.method === 'POST') {
      const read = await readBody(req, this._limits.maxBodyBytes);
      if (!read.ok) {
        if (read.reason === 'too-large') {
          // The rest is read and dropped (never held, and cut at the request timeout): a
          // connection closed under a client still sending would lose it the answer.
          req.resume();
          refuse(res, 413, `request body over ${this._limits.maxBodyBytes} bytes`);
        }
        return;
      }
      let body: unknown;
      try {
        body = JSON.parse(read.text);
      } catch {
        return refuse(res, 400, 'parse error: the body is not JSON');
      }
      const isInit = Array.isArray(body)
        ? body.some(isInitializeRequest)
        : isInitializeRequest(body);
      // An initialize that still carries the id of a session this server does not know (clients
      // keep it across a server restart) starts a new session rather than failing forever.
      const isKnown = typeof sessionId === 'string' && this._sessions.find(sessionId) !== undefined;
      if (isInit && !isKnown) {
        if (!this._sessions.hasRoom()) {
          return refuse(
            res,
            503,
            `too many MCP sessions (at most ${this._limits.maxMcpSessions}), each with a call running; retry when one has been answered`,
            { 'retry-after': '1' },
          );
        }
        if (sessionId !== undefined) delete req.headers['mcp-session-id'];
        return this._sessions.initialize(req, res, body);
      }
      if (sessionId === undefined) {
        const discover = asDiscover(body);
        if (discover) return unknownMethod(res, discover.id);
        return refuse(res, 400, 'no Mcp-Session-Id header: send initialize first');
      }
      return this._toSession(req, res, sessionId, body);
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (sessionId === undefined) return refuse(res, 400, 'no Mcp-Session-Id header');
      return this._toSession(req, res, sessionId, undefined);
    }
    refuse(res, 405, 'method not allowed', { allow: 'GET, POST, DELETE' });
  }

  private async _toSession(
    req: IncomingMessage,
    res: ServerResponse,
    sessionId: string | string[],
    body: unknown,
  ): Promise<void> {
    const transport = typeof sessionId === 'string' ? this._sessions.find(sessionId) : undefined;
    if (!transport) {
      return refuse(
        res,
        404,
        'MCP session not found: the server was restarted or ended this MCP session; initialize a new one (terminals that are still running are in terminal_list)',
      );
    }
    const id = sessionId as string;
    const calls = this._sessions.reserveCalls(id, body);
    if (!calls.ok) {
      return refuse(
        res,
        400,
        `invalid request: the id ${JSON.stringify(calls.duplicate)} is already a call of this MCP session not yet answered (or twice in this batch); nothing of this request ran: send each call with an id of its own`,
        {},
        -32600,
      );
    }
    // Its messages are counted until Node has sent them (back-pressure: http-backpressure.ts).
    const reply = watchReply(this._backlog, id, res);
    const routes: readonly RouteKey[] = req.method === 'GET' ? [STANDALONE] : calls.ids;
    for (const key of routes) this._backlog.route(id, key, reply);
    const abandoned = new AbortController();
    res.once('close', () => {
      // A call still running keeps its route: its answer is replaced by a short error.
      const done: RouteKey[] = [...this._sessions.unreserve(id, calls.ids), STANDALONE];
      for (const key of done) this._backlog.unroute(id, key, reply);
      if (!res.writableFinished) abandoned.abort();
    });
    await requestScope.run(abandoned.signal, () => transport.handleRequest(req, res, body));
  }

  private _unauthorized(
    req: IncomingMessage,
    res: ServerResponse,
    reason: (AuthVerdict & { ok: false })['reason'],
  ): void {
    const address = req.socket.remoteAddress ?? 'unknown';
    const { delayMs } = this._failures.fail(address);
    this._refuseRequest(req, REFUSAL_OF[reason]);
    // Held no longer than the connection's proof deadline, which then closes it.
    const key = connectionKey(req.socket);
    const heldMs = Math.min(delayMs, key === undefined ? 0 : this._gate.hold(key));
    const message =
      reason === 'in-url'
        ? 'unauthorized: a query string is refused (credentials never go in a URL); send Authorization: Bearer TOKEN'
        : 'unauthorized: send Authorization: Bearer TOKEN';
    const challenge = reason === 'invalid' ? 'Bearer error="invalid_token"' : 'Bearer';
    // The request is not read: closing keeps a client from sending more on this connection.
    setTimeout(
      () => refuse(res, 401, message, { 'www-authenticate': challenge, connection: 'close' }),
      heldMs,
    ).unref();
  }
}

const REFUSAL_OF = {
  missing: 'missing-token',
  invalid: 'wrong-token',
  'in-url': 'token-in-url',
} as const satisfies Record<(AuthVerdict & { ok: false })['reason'], RefusalReason>;

/**
 * A connection's key while it is open: its peer's address and port (the same on a TLS socket and
 * the TCP connection under it); undefined once the socket has closed.
 */
function connectionKey(socket: Socket): string | undefined {
  const { remoteAddress, remotePort } = socket;
  return remoteAddress === undefined || remotePort === undefined
    ? undefined
    : `${remoteAddress} ${remotePort}`;
}
