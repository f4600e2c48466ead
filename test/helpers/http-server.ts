/**
 * The built server (dist/main.js) serving MCP over HTTP (`agent-tty serve --http`), as a child
 * process, and clients for it: the SDK's Client over its Streamable HTTP transport, and plain
 * fetch for requests no SDK would send.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SERVER } from './paths.js';
import { type ToolCalls, toolCalls } from './tool-calls.js';

export interface HttpServer {
  readonly child: ChildProcess;
  /** http://127.0.0.1:PORT/mcp, as the server announced it. */
  readonly url: string;
  readonly port: number;
  stderr(): string;
  /** Resolves with the exit code (or signal name) once the server has exited. */
  readonly exited: Promise<number | string>;
  /** SIGTERM, then the exit. */
  stop(): Promise<number | string>;
}

export interface HttpClient extends ToolCalls {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  close(): Promise<void>;
}

/** A token as a user would make one. */
export const newToken = () => randomBytes(32).toString('hex');

/** The server's environment: this process's, less any token, plus `env`. */
function serverEnv(env: Record<string, string>): Record<string, string> {
  const base = { ...(process.env as Record<string, string>) };
  delete base.AGENT_TTY_TOKEN;
  return { ...base, ...env };
}

/** Runs `agent-tty serve ARGS` to its exit, for servers that must refuse to start. */
export function runServe(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SERVER, 'serve', ...args], {
      env: serverEnv(env),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/**
 * Starts `agent-tty serve --http 127.0.0.1:0 ARGS` (dist/main.js, or `server`) in `cwd`, through
 * `prefix` when given (`runuser -u USER --`: as another user), and waits for the line saying
 * where it listens.
 */
export async function startHttpServer(
  options: {
    args?: string[];
    env?: Record<string, string>;
    address?: string;
    cwd?: string;
    prefix?: readonly string[];
    server?: string;
  } = {},
): Promise<HttpServer> {
  const [command, ...prefixArgs] = [...(options.prefix ?? []), process.execPath];
  const child = spawn(
    command as string,
    [
      ...prefixArgs,
      options.server ?? SERVER,
      'serve',
      '--http',
      options.address ?? '127.0.0.1:0',
      ...(options.args ?? []),
    ],
    {
      env: serverEnv(options.env ?? {}),
      stdio: ['ignore', 'ignore', 'pipe'],
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    },
  );
  let stderr = '';
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line:\n${stderr}`)), 15_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /serving MCP over HTTPS? at (\S+)/.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve(found[1] as string);
      }
    });
    void exited.then((code) => reject(new Error(`server exited (${code}):\n${stderr}`)));
  });
  return {
    child,
    url,
    port: Number(new URL(url).port),
    stderr: () => stderr,
    exited,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** An SDK Client connected to `url` with `token` in the Authorization header. */
export async function connectHttp(
  url: string,
  token: string,
  name = 'agent-tty-tests',
): Promise<HttpClient> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return { ...toolCalls(client), client, transport, close: () => client.close() };
}

/** Headers of an MCP POST, with `token` when given. */
export function mcpHeaders(token?: string, extra: Record<string, string> = {}) {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    ...extra,
  };
}

/** A JSON-RPC reply as the server sent it, unvalidated. */
export interface RawHttpReply {
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string };
}

export interface RawHttpSession {
  readonly sessionId: string;
  /** POSTs a request whose params are JSON text, written as they are; the reply, whole. */
  requestJson(method: string, paramsJson: string): Promise<RawHttpReply>;
}

/** The JSON-RPC message of an answer: a JSON body, or the first `data:` line of an SSE body. */
async function replyOf(res: Response): Promise<RawHttpReply> {
  const text = await res.text();
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    return JSON.parse(text) as RawHttpReply;
  }
  const data = text.split('\n').find((line) => line.startsWith('data: '));
  if (data === undefined) throw new Error(`no message in the stream: ${text}`);
  return JSON.parse(data.slice('data: '.length)) as RawHttpReply;
}

/**
 * An MCP session without the SDK, for requests whose bodies must go as written (JSON.parse then
 * makes `__proto__` an own key, which no SDK object can carry): initialize, then raw POSTs.
 */
export async function rawHttpSession(url: string, token: string): Promise<RawHttpSession> {
  const init = await fetch(url, {
    method: 'POST',
    headers: mcpHeaders(token),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw-http-test', version: '1' },
      },
    }),
  });
  const sessionId = init.headers.get('mcp-session-id');
  const reply = await replyOf(init);
  if (sessionId === null || reply.error) {
    throw new Error(`initialize failed (${init.status}): ${JSON.stringify(reply)}`);
  }
  const headers = mcpHeaders(token, {
    'mcp-session-id': sessionId,
    'mcp-protocol-version': '2025-06-18',
  });
  const initialized = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await initialized.text();
  let nextId = 1;
  return {
    sessionId,
    async requestJson(method, paramsJson) {
      const head = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method });
      const res = await fetch(url, {
        method: 'POST',
        headers,
        body: `${head.slice(0, -1)},"params":${paramsJson}}`,
      });
      return replyOf(res);
    },
  };
}
