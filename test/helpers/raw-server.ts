/**
 * The built server as a bare child process speaking newline-delimited JSON-RPC, for tests that
 * need the process itself: its signals, its stdio pipes, its exit.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { SERVER } from './mcp-harness.js';

export interface RawServer {
  readonly child: ChildProcessWithoutNullStreams;
  /** Sends a request and resolves with its result (rejects on a JSON-RPC error). */
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  notify(method: string, params?: Record<string, unknown>): void;
  /** Resolves with the exit code (or signal) and how long after `since` it came. */
  exited(since: number): Promise<{ code: number | null; signal: string | null; afterMs: number }>;
}

export async function startRawServer(): Promise<RawServer> {
  const child = spawn(process.execPath, [SERVER], { stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting = new Map<
    number,
    { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }
  >();
  let buffer = '';
  let nextId = 1;
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (!line.trim()) continue;
      const message = JSON.parse(line) as {
        id?: number;
        result?: Record<string, unknown>;
        error?: { message: string };
      };
      const entry = message.id === undefined ? undefined : waiting.get(message.id);
      if (!entry) continue;
      waiting.delete(message.id as number);
      if (message.error) entry.reject(new Error(message.error.message));
      else entry.resolve(message.result ?? {});
    }
  });
  child.stdout.on('error', () => undefined);
  child.stdin.on('error', () => undefined);
  let exitInfo: { code: number | null; signal: string | null; at: number } | undefined;
  const exitPromise = new Promise<void>((resolve) => {
    child.on('exit', (code, signal) => {
      exitInfo = { code, signal, at: performance.now() };
      resolve();
    });
  });
  const server: RawServer = {
    child,
    request(method, params = {}) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    },
    notify(method, params = {}) {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
    },
    async exited(since) {
      await exitPromise;
      const info = exitInfo as { code: number | null; signal: string | null; at: number };
      return { code: info.code, signal: info.signal, afterMs: info.at - since };
    },
  };
  await server.request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw-test', version: '1' },
  });
  server.notify('notifications/initialized');
  return server;
}
