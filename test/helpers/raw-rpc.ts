/**
 * The built server as a bare child process speaking newline-delimited JSON-RPC, without the SDK:
 * every reply comes whole (result or JSON-RPC error) with its round-trip time, for tests that
 * judge replies to arbitrary requests, cancel requests by id, or need the process itself (its
 * signals, its stdio pipes, its exit). The child's streams stay Buffer streams for other readers.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { SERVER } from './paths.js';

export interface RpcReply {
  readonly id: number;
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string; data?: unknown };
  /** Milliseconds from writing the request to reading its reply. */
  readonly ms: number;
}

/** A tool result as the server sent it, unvalidated. */
export interface ToolResult {
  isError?: boolean;
  content?: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown> & {
    error?: { code: string; message: string; details: Record<string, unknown> };
  };
}

export interface Pending {
  readonly id: number;
  readonly reply: Promise<RpcReply>;
}

export interface RawRpcServer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pid: number;
  /** Sends a request; its reply comes whole, whether a result or a JSON-RPC error. Rejects
   * only when the server exits first. */
  send(method: string, params?: unknown): Pending;
  /** Sends a request whose params are given as JSON text, written as they are. */
  sendJson(method: string, paramsJson: string): Pending;
  request(method: string, params?: unknown): Promise<RpcReply>;
  notify(method: string, params?: Record<string, unknown>): void;
  /** Writes `line` and a newline as they are; replies to it land in strays(). */
  writeLine(line: string): void;
  /** tools/call with any `arguments` value; rejects only on a JSON-RPC error. */
  tool(name: string, args?: unknown): Promise<ToolResult>;
  /** Ids of requests not answered yet. */
  unanswered(): number[];
  /** Lines that were not JSON-RPC replies to a request of ours. */
  strays(): string[];
  stderr(): string;
  isRunning(): boolean;
  /** Resolves with the exit code (or signal) and how long after `since` it came. */
  exited(since: number): Promise<{ code: number | null; signal: string | null; afterMs: number }>;
  /** Ends stdin (the client going away) and waits for the exit. */
  stop(): Promise<void>;
}

/**
 * How soon after shutdown begins a test requires the server to have exited: "it did not hang".
 * The spec's 1 s is made of bounded steps that terminate's and shutdown's unit tests check on a
 * fake clock; here a loaded machine adds its own delays, so the bound is ten times that. A
 * shutdown that waits on a session (the tests' sessions wait 30 s or sleep 600 s) still fails.
 */
export const EXIT_BOUND_MS = 10_000;

export interface RawRpcOptions {
  /** Variables set over this process's environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** The Node binary to run the server with (default: this one). */
  readonly node?: string;
}

/** Starts dist/main.js with `args` and completes the initialize handshake. */
export async function startRawRpcServer(
  args: string[] = [],
  options: RawRpcOptions = {},
): Promise<RawRpcServer> {
  const child = spawn(options.node ?? process.execPath, [SERVER, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  const waiting = new Map<
    number,
    { sentAt: number; resolve: (reply: RpcReply) => void; reject: (err: Error) => void }
  >();
  const strays: string[] = [];
  let stderr = '';
  let buffer = '';
  let nextId = 1;
  // Decoded here rather than with setEncoding, so other listeners still receive the raw bytes.
  const stderrText = new StringDecoder('utf8');
  const stdoutText = new StringDecoder('utf8');
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += stderrText.write(chunk);
  });
  child.stdout.on('data', (chunk: Buffer) => {
    // Searches only the new text, so multi-megabyte replies split cheaply.
    let from = buffer.length;
    buffer += stdoutText.write(chunk);
    for (let nl = buffer.indexOf('\n', from); nl !== -1; nl = buffer.indexOf('\n', from)) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      from = 0;
      if (line.trim()) onLine(line);
    }
  });
  const onLine = (line: string) => {
    const now = performance.now();
    let message: { id?: unknown; result?: RpcReply['result']; error?: RpcReply['error'] };
    try {
      message = JSON.parse(line);
    } catch {
      strays.push(line);
      return;
    }
    const entry = typeof message.id === 'number' ? waiting.get(message.id) : undefined;
    if (!entry) {
      // Notifications (logging) are not replies; anything else answering no request is a stray.
      if (message.id !== undefined) strays.push(line);
      return;
    }
    waiting.delete(message.id as number);
    const ms = now - entry.sentAt;
    const reply: RpcReply = message.error
      ? { id: message.id as number, error: message.error, ms }
      : { id: message.id as number, result: message.result ?? {}, ms };
    entry.resolve(reply);
  };
  child.stdout.on('error', () => undefined);
  child.stdin.on('error', () => undefined);
  let exitInfo: { code: number | null; signal: string | null; at: number } | undefined;
  const exitPromise = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      exitInfo = { code, signal, at: performance.now() };
      for (const [id, entry] of waiting) {
        entry.reject(new Error(`request ${id}: the server exited (${signal ?? code}) first`));
      }
      waiting.clear();
      resolve();
    });
  });

  /** `paramsJson` is sent as it is: nesting deeper than JSON.stringify can go, for one. */
  const sendJson = (method: string, paramsJson: string): Pending => {
    const id = nextId++;
    const head = JSON.stringify({ jsonrpc: '2.0', id, method });
    if (exitInfo) return { id, reply: Promise.reject(new Error('the server has exited')) };
    const reply = new Promise<RpcReply>((resolve, reject) => {
      waiting.set(id, { sentAt: performance.now(), resolve, reject });
    });
    // A request left unanswered (cancelled, or cut off by the exit) must not fail the run.
    reply.catch(() => undefined);
    child.stdin.write(`${head.slice(0, -1)},"params":${paramsJson}}\n`);
    return { id, reply };
  };
  const send = (method: string, params: unknown = {}): Pending =>
    sendJson(method, JSON.stringify(params));
  const server: RawRpcServer = {
    child,
    pid: child.pid as number,
    send,
    sendJson,
    request: (method, params) => send(method, params).reply,
    notify(method, params = {}) {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
    },
    writeLine(line) {
      child.stdin.write(`${line}\n`);
    },
    async tool(name, args = {}) {
      const reply = await send('tools/call', { name, arguments: args }).reply;
      if (reply.error) throw new Error(`${name}: JSON-RPC error ${JSON.stringify(reply.error)}`);
      return reply.result as ToolResult;
    },
    unanswered: () => [...waiting.keys()],
    strays: () => [...strays],
    stderr: () => stderr,
    isRunning: () => exitInfo === undefined,
    async exited(since) {
      await exitPromise;
      const info = exitInfo as { code: number | null; signal: string | null; at: number };
      return { code: info.code, signal: info.signal, afterMs: info.at - since };
    },
    async stop() {
      child.stdin.end();
      await exitPromise;
    },
  };
  const init = await server.request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw-rpc-test', version: '1' },
  });
  if (init.error) throw new Error(`initialize failed: ${init.error.message}`);
  server.notify('notifications/initialized');
  return server;
}
