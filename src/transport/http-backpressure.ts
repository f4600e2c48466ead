/**
 * Back-pressure of the HTTP transport (spec/http.md, Bounds): the bytes of replies written but
 * not yet sent (held in the server's memory because the client does not read its streams), per
 * MCP session and for the whole server. The stdio transport's equivalent is its 16 MiB stdout
 * backlog, past which it stops reading stdin; over HTTP the client's new requests are refused
 * instead: 429 past the MCP session's bound, 503 past the server's (for MCP sessions with bytes
 * unsent). A message that would bring an MCP session past twice its bound closes that reply's
 * connection; one that would bring the server past twice its bound closes the connections
 * holding the most unsent bytes until it fits. Answers meant for a closed connection are replaced
 * by a short error (the SDK keeps a stream's answers until its last one), other messages dropped.
 * So what a client that never reads holds is bounded, and clients that read are served.
 *
 * The SDK's transport queues each SSE event in a web ReadableStream that @hono/node-server
 * writes to the Node response only as it drains: the bytes waiting are counted when the MCP
 * server sends them (outgoing()) and uncounted as Node is handed them (watchReply()).
 */
import type { ServerResponse } from 'node:http';
import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

export interface ReplyBacklogLimits {
  /** Unsent reply bytes of one MCP session past which its new requests get 429. */
  readonly maxUnsentBytesPerSession: number;
  /** Unsent reply bytes of the server past which new requests of MCP sessions with some get 503. */
  readonly maxUnsentBytesPerServer: number;
}

/** One reply being written: its bytes not yet sent, and how to close its connection. */
export interface UnsentReply {
  unsent(): number;
  close(): void;
}

/** A reply the MCP server's messages are queued for (an SSE stream). */
export interface QueuedReply extends UnsentReply {
  /** False once its connection has closed: nothing more can reach its reader. */
  readonly isOpen: boolean;
  /** `bytes` more were handed to the stream (before Node writes them). */
  queue(bytes: number): void;
}

/** The route of messages with no request they belong to: the MCP session's GET stream. */
export const STANDALONE = Symbol('standalone stream');
export type RouteKey = RequestId | typeof STANDALONE;

/** Bytes of an SSE event around its JSON (`event: message\ndata: ` and the blank line). */
export const SSE_FRAMING_BYTES = 'event: message\ndata: \n\n'.length;

export type BacklogAdmission =
  | { readonly ok: true }
  | { readonly ok: false; readonly status: 429 | 503; readonly unsent: number };

/** Writes that would pass twice a bound close a connection (refusals happen at once the bound). */
export const CLOSE_FACTOR = 2;

/** The replies being written, by MCP session (`undefined`: a reply of no session yet). */
export class ReplyBacklog {
  private readonly _bySession = new Map<string | undefined, Set<UnsentReply>>();
  /** Per MCP session, the reply each call's answer (or the GET stream's messages) goes to. */
  private readonly _routes = new Map<string, Map<RouteKey, QueuedReply>>();

  constructor(private readonly _limits: ReplyBacklogLimits) {}

  /** Counts `reply` under `session` until the function returned is called (its connection closed). */
  track(session: string | undefined, reply: UnsentReply): () => void {
    let replies = this._bySession.get(session);
    if (!replies) {
      replies = new Set();
      this._bySession.set(session, replies);
    }
    replies.add(reply);
    return () => this._forget(session, reply);
  }

  private _forget(session: string | undefined, reply: UnsentReply): void {
    const replies = this._bySession.get(session);
    if (!replies?.delete(reply)) return;
    if (replies.size === 0) this._bySession.delete(session);
  }

  /** Unsent bytes of the replies of `session`. */
  sessionUnsent(session: string | undefined): number {
    let sum = 0;
    for (const reply of this._bySession.get(session) ?? []) sum += reply.unsent();
    return sum;
  }

  /** Unsent bytes of every reply the server is writing. */
  serverUnsent(): number {
    let sum = 0;
    for (const session of this._bySession.keys()) sum += this.sessionUnsent(session);
    return sum;
  }

  /** Replies being written (for tests and figures). */
  get size(): number {
    let n = 0;
    for (const replies of this._bySession.values()) n += replies.size;
    return n;
  }

  /** Messages of `session` for `key` (a call's id, or STANDALONE) go to `reply`. */
  route(session: string, key: RouteKey, reply: QueuedReply): void {
    let routes = this._routes.get(session);
    if (!routes) {
      routes = new Map();
      this._routes.set(session, routes);
    }
    routes.set(key, reply);
  }

  /** Ends the route of `key` when it still goes to `reply`. */
  unroute(session: string, key: RouteKey, reply: QueuedReply): void {
    const routes = this._routes.get(session);
    if (routes?.get(key) !== reply) return;
    routes.delete(key);
    if (routes.size === 0) this._routes.delete(session);
  }

  /** Forgets the routes of an MCP session that ended. */
  forgetSession(session: string): void {
    this._routes.delete(session);
  }

  /**
   * What to send of `message`, which the MCP server of `session` sends (about request
   * `relatedRequestId` when it is not an answer): the message itself, counted as queued on its
   * reply; or, when its reply's connection has closed or must close (beforeWrite), a stand-in
   * for an answer (a short JSON-RPC error, so the SDK's transport still sees every call of the
   * stream answered and keeps no result for it) and nothing for any other message.
   */
  outgoing(
    session: string | undefined,
    message: JSONRPCMessage,
    relatedRequestId?: RequestId,
  ): JSONRPCMessage | undefined {
    if (session === undefined) return message;
    const isAnswer = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
    const key: RouteKey | undefined = isAnswer ? message.id : (relatedRequestId ?? STANDALONE);
    if (key === undefined) return message;
    const reply = this._routes.get(session)?.get(key);
    if (isAnswer && reply) this.unroute(session, key, reply);
    if (!reply) return message;
    if (reply.isOpen) {
      const bytes = SSE_FRAMING_BYTES + Buffer.byteLength(JSON.stringify(message));
      if (this.beforeWrite(session, reply, bytes)) {
        reply.queue(bytes);
        return message;
      }
    }
    return isAnswer ? unsentAnswer(message.id as RequestId) : undefined;
  }

  /** Routes kept (for tests). */
  get routes(): number {
    let n = 0;
    for (const routes of this._routes.values()) n += routes.size;
    return n;
  }

  /**
   * Whether a new request of `session` may be served: 429 while the session's unsent bytes are
   * past its bound; 503 while the server's are past its bound and the session has some unsent
   * (a client that reads its replies is still served).
   */
  admit(session: string): BacklogAdmission {
    const mine = this.sessionUnsent(session);
    if (mine > this._limits.maxUnsentBytesPerSession) {
      return { ok: false, status: 429, unsent: mine };
    }
    if (mine > 0 && this.serverUnsent() > this._limits.maxUnsentBytesPerServer) {
      return { ok: false, status: 503, unsent: mine };
    }
    return { ok: true };
  }

  /**
   * Before `bytes` more are written to `reply` of `session`: false when the reply must be closed
   * instead (its session would pass CLOSE_FACTOR times its bound, or it holds the most of a
   * server that would pass CLOSE_FACTOR times its bound); other replies holding more are closed
   * first to make room, largest first. A reply closed here is no longer counted.
   */
  beforeWrite(session: string | undefined, reply: UnsentReply, bytes: number): boolean {
    const sessionCap = CLOSE_FACTOR * this._limits.maxUnsentBytesPerSession;
    if (session !== undefined && this.sessionUnsent(session) + bytes > sessionCap) {
      return this._closed(session, reply);
    }
    const serverCap = CLOSE_FACTOR * this._limits.maxUnsentBytesPerServer;
    let total = this.serverUnsent();
    while (total + bytes > serverCap) {
      const largest = this._largest();
      if (!largest || largest.reply === reply || largest.unsent <= reply.unsent()) {
        return this._closed(session, reply);
      }
      this._forget(largest.session, largest.reply);
      largest.reply.close();
      total -= largest.unsent;
    }
    return true;
  }

  private _closed(session: string | undefined, reply: UnsentReply): false {
    this._forget(session, reply);
    reply.close();
    return false;
  }

  private _largest():
    | { session: string | undefined; reply: UnsentReply; unsent: number }
    | undefined {
    let best: { session: string | undefined; reply: UnsentReply; unsent: number } | undefined;
    for (const [session, replies] of this._bySession) {
      for (const reply of replies) {
        const unsent = reply.unsent();
        if (!best || unsent > best.unsent) best = { session, reply, unsent };
      }
    }
    return best;
  }
}

/** What stands for an answer whose connection closed: no one can read it; nothing of it is kept. */
export function unsentAnswer(id: RequestId): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32001,
      message:
        'the connection of this call closed before its answer was sent (its client did not read its replies); the answer was dropped',
    },
  };
}

/** The bytes of a chunk given to `write` or `end` (a callback in its place is none). */
export function chunkBytes(chunk: unknown, encoding?: unknown): number {
  if (typeof chunk === 'string') {
    return Buffer.byteLength(
      chunk,
      typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8',
    );
  }
  if (chunk instanceof Uint8Array) return chunk.byteLength;
  return 0;
}

/**
 * Counts `res` in `backlog` under `session` while its connection is open: its unsent bytes are
 * those queued for it (outgoing()) and not yet handed to Node, plus Node's own buffer of it.
 * Closing it destroys the connection (what was not sent is dropped).
 */
export function watchReply(
  backlog: ReplyBacklog,
  session: string | undefined,
  res: ServerResponse,
): QueuedReply {
  let queued = 0;
  let isOpen = true;
  const reply: QueuedReply = {
    get isOpen() {
      return isOpen && !res.destroyed;
    },
    unsent: () => (res.destroyed ? 0 : queued + res.writableLength),
    queue: (bytes) => {
      queued += bytes;
    },
    close: () => {
      isOpen = false;
      queued = 0;
      res.destroy();
    },
  };
  const forget = backlog.track(session, reply);
  res.once('close', () => {
    isOpen = false;
    queued = 0;
    forget();
  });
  const handed = (bytes: number) => {
    queued = Math.max(0, queued - bytes);
  };
  const write = res.write;
  const end = res.end;
  // biome-ignore lint/suspicious/noExplicitAny: the overloads of write and end pass through
  res.write = function (this: ServerResponse, chunk: any, ...rest: any[]): boolean {
    handed(chunkBytes(chunk, rest[0]));
    return Reflect.apply(write, this, [chunk, ...rest]) as boolean;
  } as ServerResponse['write'];
  // biome-ignore lint/suspicious/noExplicitAny: as above
  res.end = function (this: ServerResponse, chunk?: any, ...rest: any[]): ServerResponse {
    handed(chunkBytes(chunk, rest[0]));
    return Reflect.apply(end, this, [chunk, ...rest]) as ServerResponse;
  } as ServerResponse['end'];
  return reply;
}
