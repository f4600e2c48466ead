/**
 * The built server (dist/main.js) as an agent's client sees it: a child process on a stdio MCP
 * connection with the SDK's Client, and the tool calls of tool-calls.ts over it.
 */
import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SERVER } from './paths.js';
import { type ToolCalls, toolCalls } from './tool-calls.js';

export interface Harness extends ToolCalls {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  /** The server process. */
  readonly pid: number;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Closes the client, which ends the server. */
  close(): Promise<void>;
}

/**
 * Starts dist/main.js (or `server`) with `args`, `env` on top of this process's, in `cwd`, and connects;
 * `prefix` runs it through another command (`runuser -u USER --`: as another user).
 */
export async function startServer(
  options: {
    args?: string[];
    env?: Record<string, string>;
    cwd?: string;
    prefix?: readonly string[];
    /** Another built server to start (a copy of the install); dist/main.js by default. */
    server?: string;
  } = {},
): Promise<Harness> {
  const server = options.server ?? SERVER;
  if (!existsSync(server)) throw new Error(`${server} is missing: run npm run build first`);
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
