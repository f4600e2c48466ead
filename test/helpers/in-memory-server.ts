/**
 * The server in this process: createServer(deps) with a real SessionRegistry and the real session
 * factory (real PTYs and programs), an SDK Client on the other end of an InMemoryTransport pair,
 * so handler behaviour is tested without building dist/. Built as src/serve.ts builds it.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { closeSharedMatchPool } from '../../src/match/match-pool.js';
import { createServer } from '../../src/server.js';
import { SessionRegistry } from '../../src/session/registry.js';
import { createSessionFactory } from '../../src/session/session-factory.js';
import { type Config, DEFAULT_CONFIG } from '../../src/shared/config.js';
import { createLogger } from '../../src/shared/log.js';
import { sessionPids, waitGone } from './processes.js';
import { type ToolCalls, toolCalls } from './tool-calls.js';

/** A tools/call as the server handled it, whether or not its reply reached the client. */
export interface HandledCall {
  readonly name: string;
  readonly result: CallToolResult;
  /** The client cancelled the request: MCP sends no reply, so only this record shows it. */
  readonly cancelled: boolean;
}

export interface InMemoryServer extends ToolCalls {
  readonly client: Client;
  readonly registry: SessionRegistry;
  readonly config: Config;
  /** Every tools/call result the server produced, in the order they finished. */
  handled(): readonly HandledCall[];
  /** What the server logged (warn and above unless config.logLevel says otherwise). */
  logs(): string;
  /**
   * Closes the client and every session, and stops the pattern workers as serve.ts does at
   * shutdown; resolves with the pids of any session's processes still alive after that (none is
   * the expected outcome).
   */
  close(): Promise<number[]>;
}

type RequestHandler = (
  request: { method: string; params?: { name?: unknown } },
  extra: { signal: AbortSignal },
) => Promise<unknown>;

/**
 * Runs `build` while every request handler it registers on an SDK Server is wrapped to record
 * tools/call results in `handled`. Only observes: results pass through unchanged.
 */
function recordingToolCalls<T>(handled: HandledCall[], build: () => T): T {
  const original = Server.prototype.setRequestHandler;
  const patched = function (this: Server, schema: unknown, handler: RequestHandler) {
    const recorded: RequestHandler = async (request, extra) => {
      const result = await handler(request, extra);
      if (request.method === 'tools/call') {
        handled.push({
          name: String(request.params?.name),
          result: result as CallToolResult,
          cancelled: extra.signal.aborted,
        });
      }
      return result;
    };
    return (original as (this: Server, s: unknown, h: RequestHandler) => void).call(
      this,
      schema,
      recorded,
    );
  };
  Server.prototype.setRequestHandler = patched as typeof original;
  try {
    return build();
  } finally {
    Server.prototype.setRequestHandler = original;
  }
}

/** Starts the server in-process with DEFAULT_CONFIG plus `overrides`, and connects a client. */
export async function startInMemoryServer(
  overrides: Partial<Config> = {},
): Promise<InMemoryServer> {
  const config: Config = Object.freeze({ ...DEFAULT_CONFIG, ...overrides });
  let logs = '';
  const logger = createLogger(config.logLevel, (line) => {
    logs += line;
  });
  const createSession = createSessionFactory(config, logger);
  const leaders: number[] = [];
  const registry = new SessionRegistry(
    {
      maxSessions: config.maxSessions,
      scrollbackLines: config.scrollbackLines,
      recordDir: config.recordDir,
      defaultRecordDir: join(tmpdir(), 'agent-tty-test-recordings'),
      idleTimeoutMs: config.idleTimeoutMs,
    },
    async (spec) => {
      const session = await createSession(spec);
      leaders.push(session.pid);
      return session;
    },
  );
  const handled: HandledCall[] = [];
  const server = recordingToolCalls(handled, () =>
    createServer({
      registry,
      config,
      logger,
      launchDefaults: { env: process.env, cwd: process.cwd() },
    }),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'agent-tty-handler-tests', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    ...toolCalls(client, 60_000),
    client,
    registry,
    config,
    handled: () => handled,
    logs: () => logs,
    async close() {
      await client.close();
      await registry.closeAll();
      await server.close();
      // The process's pattern workers: left running, they keep a test file from ending.
      closeSharedMatchPool();
      const linux = process.platform === 'linux';
      return waitGone(leaders.flatMap((sid) => [sid, ...(linux ? sessionPids(sid) : [])]));
    },
  };
}
