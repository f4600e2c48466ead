/**
 * The built server (dist/main.js) as an agent's client sees it: a child process on a stdio MCP
 * connection with the SDK's Client, and the tool calls of tool-calls.ts over it. With
 * AGENT_TTY_TEST_TRANSPORT=http, the same server served over HTTP (`agent-tty serve --http`) and
 * the SDK's Streamable HTTP client instead: the tool tests run over both transports.
 */
import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectHttp, newToken, startHttpServer } from './http-server.js';
import { SERVER } from './paths.js';
import { type ToolCalls, toolCalls } from './tool-calls.js';
import { settledWithin } from './wait.js';

/** The transport startServer uses: AGENT_TTY_TEST_TRANSPORT (`stdio`, the default, or `http`). */
export const TEST_TRANSPORT = ((): 'stdio' | 'http' => {
  const named = process.env.AGENT_TTY_TEST_TRANSPORT || 'stdio';
  // A misspelt name must not quietly run the tests over stdio again.
  if (named !== 'stdio' && named !== 'http') {
    throw new Error(`AGENT_TTY_TEST_TRANSPORT=${named}: the transports are stdio and http`);
  }
  return named;
})();

/** How long close() waits for an HTTP server to exit after SIGTERM before it kills it. */
const HTTP_STOP_GRACE_MS = 5000;

export interface Harness extends ToolCalls {
  readonly client: Client;
  readonly transport: StdioClientTransport | StreamableHTTPClientTransport;
  /** The server process. */
  readonly pid: number;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Closes the client and ends the server (stdio: by closing its stdin; HTTP: SIGTERM). */
  close(): Promise<void>;
}

export interface ServerOptions {
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  prefix?: readonly string[];
  /** Another built server to start (a copy of the install); dist/main.js by default. */
  server?: string;
}

/**
 * Starts dist/main.js (or `server`) with `args`, `env` on top of this process's, in `cwd`, and connects;
 * `prefix` runs it through another command (`runuser -u USER --`: as another user). The transport
 * is TEST_TRANSPORT's.
 */
export async function startServer(options: ServerOptions = {}): Promise<Harness> {
  const server = options.server ?? SERVER;
  if (!existsSync(server)) throw new Error(`${server} is missing: run npm run build first`);
  return TEST_TRANSPORT === 'http' ? startOverHttp(options) : startOverStdio(server, options);
}

async function startOverStdio(server: string, options: ServerOptions): Promise<Harness> {
  let stderr = '';
  const [command, ...prefixArgs] = [...(options.prefix ?? []), process.execPath];
  const transport = new StdioClientTransport({
    command: command as string,
    args: [...prefixArgs, server, ...(options.args ?? [])],
    env: { ...(process.env as Record<string, string>), ...options.env },
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'agent-tty-tests', version: '1.0.0' });
  await client.connect(transport);
  return {
    ...toolCalls(client),
    client,
    transport,
    pid: transport.pid as number,
    stderr: () => stderr,
    close: () => client.close(),
  };
}

/** `agent-tty serve --http 127.0.0.1:0` with a token of its own, and a client over HTTP. */
async function startOverHttp(options: ServerOptions): Promise<Harness> {
  const token = newToken();
  const http = await startHttpServer({
    ...options,
    env: { ...options.env, AGENT_TTY_TOKEN: token },
  });
  let connected: Awaited<ReturnType<typeof connectHttp>>;
  try {
    connected = await connectHttp(http.url, token);
  } catch (err) {
    await http.stop();
    throw err;
  }
  const { client, transport } = connected;
  return {
    ...toolCalls(client),
    client,
    transport,
    pid: http.child.pid as number,
    stderr: http.stderr,
    close: async () => {
      await client.close().catch(() => undefined);
      // The timer is cleared once the server stops, or it holds the test process open.
      const stopped = await settledWithin(
        http.stop().then(() => true),
        HTTP_STOP_GRACE_MS,
      );
      if (!stopped) {
        http.child.kill('SIGKILL');
        await http.exited;
      }
    },
  };
}
