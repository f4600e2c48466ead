/**
 * createServer(deps): the MCP server with the six tools wired to a session registry. No process
 * handling here, so tests can run it over any transport. Uses the SDK's low-level Server so that
 * agent-tty owns validation and error results: every failure carries a stable code.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { registerResources } from './resources.js';
import type { LaunchDefaults } from './session/launch.js';
import type { SessionRegistry } from './session/registry.js';
import type { Config } from './shared/config.js';
import { formatDuration } from './shared/duration.js';
import type { Logger } from './shared/log.js';
import { PACKAGE } from './shared/version.js';
import { callTool, findTool } from './tools/index.js';
import type { AttachCommand } from './tools/presence.js';
import { listTools } from './tools/tool-list.js';

export interface ServerDeps {
  readonly registry: SessionRegistry;
  readonly config: Config;
  readonly logger: Logger;
  readonly launchDefaults: LaunchDefaults;
  /** The command a person runs to attach to a session, once the attach socket listens. */
  readonly attachCommand?: AttachCommand;
  /** The current call's signal that its result can no longer be read (HTTP: the connection closed). */
  readonly abandonedSignal?: () => AbortSignal | undefined;
}

const LooseCallToolRequestSchema = z.looseObject({
  method: z.literal('tools/call'),
  params: z.unknown().optional(),
});

const NO_ELICITATION = {
  getValidator: () => () => ({
    valid: false as const,
    data: undefined,
    errorMessage: 'agent-tty does not elicit input from the client',
  }),
};

/** The server's instructions (sent at initialize), saying what this server's settings are. */
export function instructions(config: Pick<Config, 'maxSessions' | 'quietMs'>): string {
  return [
    'agent-tty runs programs in real terminals so you can use interactive and full-screen programs.',
    'terminal_start runs a command (or a shell) and returns the screen; terminal_input types text, presses keys (key "Enter", "Up", "Tab" or one character; Ctrl+C is key "c" with modifiers ["Ctrl"]), pastes, clicks and waits, then returns the screen; terminal_snapshot reads the screen again; terminal_close ends the session and all its processes.',
    `Every result shows the screen once it has settled (quiet for ${formatDuration(config.quietMs)} by default).`,
    `Close sessions you no longer need: at most ${config.maxSessions} are kept.`,
  ].join(' ');
}

/** A client-supplied name for an error text, cut short (the transport makes it safe to show). */
function quoteShort(name: string): string {
  return JSON.stringify(name.length > 100 ? `${name.slice(0, 100)}…` : name);
}

/** The client's name from its initialize, cut to 100 characters; undefined when it gave none. */
function clientName(server: Server): string | undefined {
  const name = server.getClientVersion()?.name;
  if (!name) return undefined;
  return name.length > 100 ? `${name.slice(0, 100)}…` : name;
}

export function createServer(deps: ServerDeps): Server {
  const server = new Server(
    { name: PACKAGE.name, title: 'agent-tty', version: PACKAGE.version },
    {
      capabilities: { tools: {}, resources: { subscribe: true, listChanged: true } },
      instructions: instructions(deps.config),
      // Only elicitation uses a JSON Schema validator, and agent-tty never elicits; this keeps
      // the SDK from building Ajv at start-up (the bundle leaves Ajv out, scripts/bundle.mjs).
      jsonSchemaValidator: NO_ELICITATION,
    },
  );
  // Released when the server closes: over HTTP, servers come and go with their clients.
  const releaseResources = registerResources(server, deps.registry);
  server.onclose = releaseResources;
  const tools = listTools();
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  // Registered with a loose schema: the SDK then validates the request itself and answers a
  // malformed one (arguments that are not an object) with InvalidParams, not an internal error.
  server.setRequestHandler(LooseCallToolRequestSchema, async (raw, extra) => {
    const request = CallToolRequestSchema.parse(raw);
    const tool = findTool(request.params.name);
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown tool ${quoteShort(request.params.name)}; the tools are ${tools.map((t) => t.name).join(', ')}`,
      );
    }
    const token = request.params._meta?.progressToken;
    const progress =
      token === undefined
        ? undefined
        : (value: number, total: number | undefined, message: string) => {
            extra
              .sendNotification({
                method: 'notifications/progress',
                params: { progressToken: token, progress: value, total, message },
              })
              .catch(() => undefined);
          };
    // The arguments as parsed from JSON, not as the SDK's schema copied them: that copy drops a
    // `__proto__` key, which must be refused, not ignored.
    const args = (raw.params as { arguments?: unknown }).arguments;
    return callTool(tool, args, {
      registry: deps.registry,
      config: deps.config,
      logger: deps.logger,
      launchDefaults: deps.launchDefaults,
      attachCommand: deps.attachCommand,
      clientName: () => clientName(server),
      abandoned: deps.abandonedSignal?.(),
      signal: extra.signal,
      progress,
    });
  });
  return server;
}
