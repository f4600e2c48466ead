/**
 * The MCP sessions of the HTTP transport (spec/http.md, Sessions): one SDK Streamable HTTP
 * transport and one MCP server per client that initialized, found by its Mcp-Session-Id. At most
 * `max` are kept; a new one past that ends the one used least recently (its client gets 404 and
 * initializes again). Each counts its open requests (streams), at most `maxOpen` at once.
 * Terminals are not here: they belong to the server's one registry.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Logger } from '../shared/log.js';

/** What the transport needs of an MCP server: the SDK Server's connect and close. */
export interface McpEndpoint {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

interface Entry {
  readonly transport: StreamableHTTPServerTransport;
  readonly endpoint: McpEndpoint;
  lastUsedMs: number;
  /** Requests of this session not yet answered in full (an SSE stream stays open until closed). */
  open: number;
}

export class McpSessions {
  private readonly _byId = new Map<string, Entry>();

  constructor(
    private readonly _newEndpoint: () => McpEndpoint,
    private readonly _max: number,
    private readonly _logger: Logger,
    private readonly _maxOpen: number = Number.POSITIVE_INFINITY,
    private readonly _now: () => number = () => performance.now(),
  ) {}

  /**
   * Counts a request of session `id` as open until `release(id)`: false, counting nothing, when
   * the session has `maxOpen` open already. An unknown session counts nothing and is true.
   */
  claim(id: string): boolean {
    const entry = this._byId.get(id);
    if (!entry) return true;
    if (entry.open >= this._maxOpen) return false;
    entry.open++;
    return true;
  }

  /** Ends what `claim(id)` counted; nothing once the session has ended. */
  release(id: string): void {
    const entry = this._byId.get(id);
    if (entry && entry.open > 0) entry.open--;
  }

  /** The transport of session `id`, marked used; undefined when unknown (ended, or before a restart). */
  find(id: string): StreamableHTTPServerTransport | undefined {
    const entry = this._byId.get(id);
    if (entry) entry.lastUsedMs = this._now();
    return entry?.transport;
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
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this._evictBeyond(this._max - 1);
        this._byId.set(id, { transport, endpoint, lastUsedMs: this._now(), open: 0 });
        this._logger.info(`MCP session opened (${this._byId.size} open)`);
      },
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined && this._byId.get(id)?.transport === transport) this._byId.delete(id);
      void endpoint.close().catch(() => undefined);
    };
    transport.onerror = (err) => this._logger.warn(`HTTP transport: ${err.message}`);
    await endpoint.connect(transport);
    return transport;
  }

  get size(): number {
    return this._byId.size;
  }

  /** Ends every session (their streams close; clients must initialize again). */
  async closeAll(): Promise<void> {
    const entries = [...this._byId.values()];
    this._byId.clear();
    await Promise.all(entries.map((e) => e.transport.close().catch(() => undefined)));
  }

  private _evictBeyond(keep: number): void {
    while (this._byId.size > keep) {
      let oldest: [string, Entry] | undefined;
      for (const pair of this._byId)
        if (!oldest || pair[1].lastUsedMs < oldest[1].lastUsedMs) oldest = pair;
      if (!oldest) return;
      this._byId.delete(oldest[0]);
      this._logger.info('MCP session ended: the least recently used, to make room for a new one');
      void oldest[1].transport.close().catch(() => undefined);
    }
  }
}
