/**
 * `agent-tty serve --http`: the token (transport/token.ts), the refusal to expose a server
 * without one the user chose, the lines that tell a person how to register it, and the HTTP
 * front (transport/http-server.ts) with one MCP server per client over the one session registry.
 * Contract: spec/http.md.
 */
import type { Front } from './serve.js';
import { createServer, type ServerDeps } from './server.js';
import { formatDuration } from './shared/duration.js';
import { formatHttpAuthority, type HttpAddress } from './shared/http-address.js';
import { abandonedSignal, HTTP_LIMITS, HttpMcpServer, MCP_PATH } from './transport/http-server.js';
import { loadTlsFiles, type TlsFiles } from './transport/tls.js';
import {
  defaultTokenPath,
  resolveToken,
  TOKEN_ENV,
  type Token,
  TokenError,
} from './transport/token.js';

export interface HttpSetup {
  readonly address: HttpAddress;
  readonly token: Token;
  /** HTTPS when given. */
  readonly tls?: TlsFiles | undefined;
  /** --mcp-idle-timeout: end an MCP session unused this long (0 = never; default an hour). */
  readonly mcpIdleTimeoutMs?: number | undefined;
}

/**
 * Resolves the token for serving at `address`; TokenError (a line to show) when it cannot be
 * used, or when a non-loopback address would be served with a token the user did not choose.
 */
export function prepareHttp(
  address: HttpAddress,
  tokenFile: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  tls?: { readonly cert: string; readonly key: string },
): HttpSetup {
  const explicit = (env[TOKEN_ENV] ?? '') !== '' || tokenFile !== undefined;
  if (!address.isLoopback && !explicit) {
    throw new TokenError(
      `refusing to serve on ${address.host}, which is not a loopback address, without a token you chose: set ${TOKEN_ENV} or pass --token-file PATH (a file of mode 600 holding e.g. the output of openssl rand -hex 32); or serve on 127.0.0.1 and reach it through ssh -L`,
    );
  }
  const token = resolveToken({ env, tokenFile, storePath: defaultTokenPath(env) });
  return { address, token, tls: tls && loadTlsFiles(tls.cert, tls.key) };
}

/**
 * What a person reads on stderr once the server listens: where, how to register it, and how long
 * a session nobody uses is kept.
 */
export function httpBanner(setup: HttpSetup, port: number, idleTimeoutMs: number): string[] {
  const scheme = setup.tls ? 'https' : 'http';
  const url = `${scheme}://${formatHttpAuthority({ host: setup.address.host, port })}${MCP_PATH}`;
  const { token } = setup;
  // The token itself is shown only the once it is made; after that, the file it is in.
  const value =
    token.source === 'generated'
      ? token.value
      : token.path !== undefined
        ? `$(cat ${token.path})`
        : `$${TOKEN_ENV}`;
  const lines = [`agent-tty: serving MCP over ${setup.tls ? 'HTTPS' : 'HTTP'} at ${url}`];
  if (token.source === 'generated') {
    lines.push(`agent-tty: generated a token and wrote it to ${token.path} (mode 600)`);
  }
  lines.push(
    'agent-tty: register it with',
    `  claude mcp add --transport http agent-tty ${url} --header "Authorization: Bearer ${value}"`,
    `  codex mcp add agent-tty --url ${url} --bearer-token-env-var ${TOKEN_ENV}   (with ${TOKEN_ENV} set to the token in codex's environment)`,
    idleTimeoutMs > 0
      ? `agent-tty: a terminal no tool call names for ${formatDuration(idleTimeoutMs)} is closed (--idle-timeout MS; 0 = never)`
      : 'agent-tty: terminals stay open until closed or the server stops (--idle-timeout 0)',
  );
  return lines;
}

/** Listens, prints the banner, and serves each MCP session with its own server over `deps`. */
export async function startHttpFront(setup: HttpSetup, deps: ServerDeps): Promise<Front> {
  let latestClient = '';
  const http = await HttpMcpServer.listen({
    address: setup.address,
    token: setup.token.value,
    tls: setup.tls,
    logger: deps.logger,
    limits: {
      ...HTTP_LIMITS,
      mcpSessionIdleMs: setup.mcpIdleTimeoutMs ?? HTTP_LIMITS.mcpSessionIdleMs,
    },
    newEndpoint: () => {
      const server = createServer({ ...deps, abandonedSignal });
      server.oninitialized = () => {
        latestClient = server.getClientVersion()?.name ?? '';
      };
      return server;
    },
  });
  if (deps.config.logLevel !== 'silent') {
    process.stderr.write(`${httpBanner(setup, http.port, deps.config.idleTimeoutMs).join('\n')}\n`);
  }
  return { clientName: () => latestClient, close: () => http.close() };
}
