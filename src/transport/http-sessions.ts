/**
 * The MCP sessions of the HTTP transport (spec/http.md, Sessions): one SDK Streamable HTTP
 * transport and one MCP server per client that initialized, found by its Mcp-Session-Id. Each
 * counts its open requests (streams), at most `maxOpen` at once, and the ids of its calls still
 * running, which must be unique. At most `max` are kept: a new one past that ends an idle one
 * (never one with a call running); one unused for `idleMs` ends. A client whose session ended
 * gets 404 and initializes again. Terminals are not here: they belong to the server's registry.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../screen/settle.js';
import type { Logger } from '../shared/log.js';

/** What the transport needs of an MCP server: the SDK Server's connect and close. */
export interface McpEndpoint {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

export interface McpSessionLimits {
  /** MCP sessions kept at once. */
  readonly max: number;
  /** Requests open at once on one session (each SSE stream is one). */
  readonly maxOpen: number;
  /** A session with nothing open and no request for this long ends; 0 = never. */
  readonly idleMs: number;
}

/** What the HTTP server sees of every session's traffic (back-pressure: http-backpressure.ts). */
export interface McpSessionHooks {
  /**
   * What to send of a message the MCP server of session `id` sends: the message, another in its
   * place, or undefined for nothing.
   */
  readonly outgoing?: (
    id: string | undefined,
    message: JSONRPCMessage,
    relatedRequestId: RequestId | undefined,
  ) => JSONRPCMessage | undefined;
  /** Session `id` ended. */
  readonly ended?: (id: string) => void;
}

/** Where a call's id is: reserved by its POST, or handed to the MCP server (running). */
type CallState = 'reserved' | 'running';

interface Entry {
  readonly transport: StreamableHTTPServerTransport;
  readonly endpoint: McpEndpoint;
  lastUsedMs: number;
  /** Requests of this session not yet answered in full (an SSE stream stays open until closed). */
  open: number;
  /** Ids of this session's calls not yet answered. */
  readonly calls: Map<RequestId, CallState>;
}

export type CallAdmission =
  | { readonly ok: true; readonly ids: readonly RequestId[] }
  | { readonly ok: false; readonly duplicate: RequestId };

export class McpSessions {
  private readonly _byId = new Map<string, Entry>();
  private _sweep: unknown;

  constructor(
    private readonly _newEndpoint: () => McpEndpoint,
    private readonly _limits: McpSessionLimits,
    private readonly _logger: Logger,
    private readonly _clock: Clock,
    private readonly _hooks: McpSessionHooks = {},
  ) {}

  /**
   * Counts a request of session `id` as open until `release(id)`: false, counting nothing, when
   * the session has `maxOpen` open already. An unknown session counts nothing and is true.
   */
  claim(id: string): boolean {
    const entry = this._byId.get(id);
    if (!entry) return true;
    if (entry.open >= this._limits.maxOpen) return false;
    entry.open++;
    entry.lastUsedMs = this._clock.now();
    return true;
  }

  /** Ends what `claim(id)` counted; nothing once the session has ended. */
  release(id: string): void {
    const entry = this._byId.get(id);
    if (!entry) return;
    if (entry.open > 0) entry.open--;
    entry.lastUsedMs = this._clock.now();
  }

  /**
   * Reserves the ids of the requests in `body` (one message or a batch) for session `id`:
   * refused, reserving nothing, when one is already a call of the session not yet answered or
   * appears twice in the batch (the SDK's transport keys each answer by id: a second call with
   * the id would take the first one's answer). Undo with unreserve() if the POST never reaches
   * the MCP server; an answer or a cancellation frees its id.
   */
  reserveCalls(id: string, body: unknown): CallAdmission {
    const entry = this._byId.get(id);
    const messages = Array.isArray(body) ? body : [body];
    const ids: RequestId[] = [];
    for (const message of messages) {
      if (!isJSONRPCRequest(message)) continue;
      if (entry?.calls.has(message.id) || ids.includes(message.id)) {
        return { ok: false, duplicate: message.id };
      }
      ids.push(message.id);
    }
    for (const callId of ids) entry?.calls.set(callId, 'reserved');
    return { ok: true, ids };
  }

  /**
   * Frees the ids of a POST whose calls never reached the MCP server (the SDK refused it), and
   * the ids of its calls no longer running (answered or cancelled); returns both.
   */
  unreserve(id: string, ids: readonly RequestId[]): RequestId[] {
    const calls = this._byId.get(id)?.calls;
    const freed: RequestId[] = [];
    for (const callId of ids) {
      const state = calls?.get(callId);
      if (state === 'running') continue;
      if (state === 'reserved') calls?.delete(callId);
      freed.push(callId);
    }
    return freed;
  }

  /** The transport of session `id`, marked used; undefined when unknown (ended, or before a restart). */
  find(id: string): StreamableHTTPServerTransport | undefined {
    const entry = this._byId.get(id);
    if (entry) entry.lastUsedMs = this._clock.now();
    return entry?.transport;
  }

  /** Whether a new session would find room: below `max`, or one there that may be ended. */
  hasRoom(): boolean {
    return this._byId.size < this._limits.max || this._evictable() !== undefined;
  }

  /**
   * Answers an initialize request with a new transport and MCP server, which join the sessions
   * once initialized; one that did not initialize (a refused request) is closed at once.
   */
  async initialize(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const transport = await this._open();
    await transport.handleRequest(req, res, body);
    const id = transport.sessionId;
    if (id === undefined || this._byId.get(id)?.transport !== transport) await transport.close();
  }

  private async _open(): Promise<StreamableHTTPServerTransport> {
    const endpoint = this._newEndpoint();
    const calls = new Map<RequestId, CallState>();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this._evictBeyond(this._limits.max - 1);
        const lastUsedMs = this._clock.now();
        this._byId.set(id, { transport, endpoint, lastUsedMs, open: 0, calls });
        this._logger.info(`MCP session opened (${this._byId.size} open)`);
        this._armSweep();
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined && this._byId.get(id)?.transport === transport) this._byId.delete(id);
      if (id !== undefined) this._hooks.ended?.(id);
      void endpoint.close().catch(() => undefined);
    };
    transport.onerror = (err) => this._logger.warn(`HTTP transport: ${err.message}`);
    await endpoint.connect(transport);
    trackCalls(transport, calls);
    const { outgoing } = this._hooks;
    if (outgoing) {
      // Runs before trackCalls' wrapper: a stand-in answer frees its call's id as the answer would.
      const send = transport.send.bind(transport);
      transport.send = async (message, options) => {
        const out = outgoing(transport.sessionId, message, options?.relatedRequestId);
        if (out !== undefined) await send(out, options);
      };
    }
    return transport;
  }

  get size(): number {
    return this._byId.size;
  }

  /** Ends every session (their streams close; clients must initialize again). */
  async closeAll(): Promise<void> {
    if (this._sweep !== undefined) this._clock.clearTimeout(this._sweep);
    this._sweep = undefined;
    const entries = [...this._byId.values()];
    this._byId.clear();
    await Promise.all(entries.map((e) => e.transport.close().catch(() => undefined)));
  }

  /** Ends the sessions idle (nothing open, no call running) for `idleMs`; how many ended. */
  expireIdle(): number {
    const { idleMs } = this._limits;
    if (idleMs <= 0) return 0;
    const now = this._clock.now();
    let ended = 0;
    for (const [id, entry] of this._byId) {
      if (isIdle(entry) && now - entry.lastUsedMs >= idleMs) {
        this._end(id, entry, `unused for ${Math.round(idleMs / 60_000)} min`);
        ended++;
      }
    }
    return ended;
  }

  /** Checks for idle sessions every quarter of idleMs (at most a minute) while any are kept. */
  private _armSweep(): void {
    const { idleMs } = this._limits;
    if (idleMs <= 0 || this._sweep !== undefined) return;
    this._sweep = this._clock.setTimeout(
      () => {
        this._sweep = undefined;
        this.expireIdle();
        if (this._byId.size > 0) this._armSweep();
      },
      Math.min(60_000, Math.max(1, Math.ceil(idleMs / 4))),
    );
    (this._sweep as { unref?: () => void }).unref?.();
  }

  /**
   * The session to end for a new one: the least recently used of those with no call running
   * (ending one with a call running would lose its answer).
   */
  private _evictable(): [string, Entry] | undefined {
    let best: [string, Entry] | undefined;
    for (const pair of this._byId) {
      if (pair[1].calls.size > 0) continue;
      if (!best || pair[1].lastUsedMs < best[1].lastUsedMs) best = pair;
    }
    return best;
  }

  /** Ends sessions until `keep` remain, or only ones with calls running do. */
  private _evictBeyond(keep: number): void {
    while (this._byId.size > keep) {
      const victim = this._evictable();
      if (!victim) return;
      this._end(
        victim[0],
        victim[1],
        'the least recently used idle one, to make room for a new one',
      );
    }
  }

  private _end(id: string, entry: Entry, why: string): void {
    this._byId.delete(id);
    this._logger.info(`MCP session ended: ${why}`);
    void entry.transport.close().catch(() => undefined);
  }
}

function isIdle(entry: Entry): boolean {
  return entry.open === 0 && entry.calls.size === 0;
}

/**
 * Follows the calls of `transport` in `calls`: running once the MCP server receives them, done
 * once their answer is sent or the client cancels them (the SDK then sends no answer).
 */
function trackCalls(transport: Transport, calls: Map<RequestId, CallState>): void {
  const received = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    if (isJSONRPCRequest(message)) calls.set(message.id, 'running');
    else if ('method' in message && message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (requestId !== undefined) calls.delete(requestId);
    }
    received?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    try {
      await send(message, options);
    } finally {
      if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
        if (message.id !== undefined) calls.delete(message.id);
      }
    }
  };
}
