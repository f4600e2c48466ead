/**
 * The HTTP transport's own answers (spec/http.md): JSON-RPC error replies to requests it refuses
 * before any MCP session sees them, and to the stateless revision's `server/discover` probe.
 */
import type { ServerResponse } from 'node:http';

/**
 * A JSON-RPC error reply with no id, as the SDK's transport answers refused requests: `code`
 * -32001 (the SDK's for a session or connection refused) unless said.
 */
export function refuse(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
  code = -32001,
): void {
  if (res.headersSent) return;
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body);
}

/**
 * A `server/discover` request (the stateless MCP revision's first request), which clients send
 * before falling back to initialize; its id, or undefined for any other body.
 */
export function asDiscover(body: unknown): { id: string | number } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { method, id } = body as { method?: unknown; id?: unknown };
  if (method !== 'server/discover') return undefined;
  return typeof id === 'string' || typeof id === 'number' ? { id } : undefined;
}

/**
 * Method not found, as a JSON-RPC reply to request `id`: the answer every client that probes
 * with server/discover takes as "initialize instead" (some take no other).
 */
export function unknownMethod(res: ServerResponse, id: string | number): void {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: {
      code: -32601,
      message: 'method not found: server/discover; this server starts with initialize',
    },
  });
  res.writeHead(200, { 'content-type': 'application/json' }).end(body);
}
