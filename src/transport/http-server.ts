/**
 * MCP over Streamable HTTP (spec/http.md): one endpoint, /mcp, on Node's http server. Each
 * request passes, in order, the Host and Origin check (403), the bearer token (401, slowed after
 * failures) and the body bound (413) before anything of it is parsed; then it goes to its MCP
 * session (http-sessions.ts), or gets 404 when that session is unknown so the client initializes
 * again. Listener bounds: HTTP_LIMITS.
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
import type { AddressInfo } from 'node:net';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { HttpAddress } from '../shared/http-address.js';
import type { Logger } from '../shared/log.js';
import { createBearerCheck, FailureDelay } from './http-auth.js';
import { readBody } from './http-body.js';
import { allowedHosts, checkHostAndOrigin } from './http-origin.js';
import { asDiscover, refuse, unknownMethod } from './http-replies.js';
import { type McpEndpoint, McpSessions } from './http-sessions.js';
import { TRANSPORT_LIMITS } from './stdio-transport.js';
import type { TlsFiles } from './tls.js';

export interface HttpLimits {
  /** Largest request body: the stdio transport's line bound. */
  readonly maxBodyBytes: number;
  /** Connections open at once; further ones are closed as they arrive. */
  readonly maxConnections: number;
  /** Time a client has to send its request headers, and its whole request. */
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  /** MCP sessions kept at once; past it the least recently used ends. */
  readonly maxMcpSessions: number;
  /** Requests open at once on one MCP session (each SSE stream is one); past it, 429. */
  readonly maxOpenRequestsPerSession: number;
}

export const HTTP_LIMITS: HttpLimits = Object.freeze({
  maxBodyBytes: TRANSPORT_LIMITS.maxLineBytes,
  maxConnections: 64,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  maxMcpSessions: 32,
  maxOpenRequestsPerSession: 16,
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
}

export class HttpMcpServer {
  private readonly _sessions: McpSessions;
  private readonly _failures = new FailureDelay();
  private readonly _checkBearer: ReturnType<typeof createBearerCheck>;
  /** Set once listening: with port 0, the port is known only then. */
  private _hosts: readonly string[] | undefined = [];
  private readonly _limits: HttpLimits;

  private constructor(
    private readonly _http: Server,
    private readonly _options: HttpServerOptions,
  ) {
    this._limits = _options.limits ?? HTTP_LIMITS;
    this._sessions = new McpSessions(
      _options.newEndpoint,
      this._limits.maxMcpSessions,
      _options.logger,
      this._limits.maxOpenRequestsPerSession,
    );
    this._checkBearer = createBearerCheck(_options.token);
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
    http.maxConnections = limits.maxConnections;
    const server = new HttpMcpServer(http, options);
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
  }

  private async _handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '';
    // Said to any other path: a client sent without the token looks for OAuth (/.well-known/…,
    // /register), and some show this body to the user.
    if (url.split('?')[0] !== MCP_PATH) {
      return refuse(
        res,
        404,
        `not found: this server's one endpoint is ${MCP_PATH}, and it takes no OAuth: send the header Authorization: Bearer TOKEN`,
      );
    }
    const where = checkHostAndOrigin(this._hosts, req.headers.host, req.headers.origin);
    if (!where.ok) {
      this._options.logger.warn(
        `refused a request from ${req.socket.remoteAddress}: bad ${where.reason}`,
      );
      return refuse(
        res,
        403,
        `forbidden: this server does not answer that ${where.reason === 'host' ? 'Host' : 'Origin'}`,
      );
    }
    const auth = this._checkBearer(req.headers.authorization, url);
    if (!auth.ok) return this._unauthorized(req, res, auth.reason);
    const sessionId = req.headers['mcp-session-id'];
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
    const abandoned = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) abandoned.abort();
    });
    await requestScope.run(abandoned.signal, () => transport.handleRequest(req, res, body));
  }

  private _unauthorized(req: IncomingMessage, res: ServerResponse, reason: string): void {
    const address = req.socket.remoteAddress ?? 'unknown';
    const { delayMs, count } = this._failures.fail(address);
    // Logged at the 1st, 2nd, 4th, 8th… failure (counted until a quiet minute, whatever was
    // accepted between): an attack cannot flood the log.
    if ((count & (count - 1)) === 0) {
      this._options.logger.warn(
        `refused a request from ${address}: ${reason} bearer token (failure ${count} from there, none a minute apart)`,
      );
    }
    const message =
      reason === 'in-url'
        ? 'unauthorized: a query string is refused (credentials never go in a URL); send Authorization: Bearer TOKEN'
        : 'unauthorized: send Authorization: Bearer TOKEN';
    const challenge = reason === 'invalid' ? 'Bearer error="invalid_token"' : 'Bearer';
    // The request is not read: closing keeps a client from sending more on this connection.
    setTimeout(
      () => refuse(res, 401, message, { 'www-authenticate': challenge, connection: 'close' }),
      delayMs,
    ).unref();
  }
}
