/**
 * The options only `agent-tty serve` takes (spec/http.md): `--http [HOST:]PORT`,
 * `--token-file PATH`, `--tls-cert PATH`, `--tls-key PATH` and `--mcp-idle-timeout MS`, taken
 * out of the command line; the rest are the server's usual options
 * (config.ts). They have no environment variables on purpose: a variable the user exported must
 * never turn the stdio server a client starts into a network listener.
 */
import { resolve } from 'node:path';
import { TerminalError } from './errors.js';
import { type HttpAddress, parseHttpAddress } from './http-address.js';

export interface ServeArgs {
  /** Where to serve MCP over HTTP; undefined = stdio. */
  readonly http: HttpAddress | undefined;
  /** The file holding the bearer token, absolute; undefined = AGENT_TTY_TOKEN or generated. */
  readonly tokenFile: string | undefined;
  /** HTTPS: the certificate chain and its private key (PEM files, absolute); both or neither. */
  readonly tls: { readonly cert: string; readonly key: string } | undefined;
  /** End an MCP session unused this long (0 = never); undefined = the default, an hour. */
  readonly mcpIdleTimeoutMs: number | undefined;
  /** Everything else, for loadConfig. */
  readonly rest: readonly string[];
}

const FLAGS = ['--http', '--token-file', '--tls-cert', '--tls-key', '--mcp-idle-timeout'] as const;

/** The longest --mcp-idle-timeout: 30 days, as --idle-timeout. */
const MAX_MCP_IDLE_MS = 30 * 24 * 3600 * 1000;

export function parseServeArgs(argv: readonly string[]): ServeArgs {
  const values: Partial<Record<(typeof FLAGS)[number], string>> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.indexOf('=');
    const flag = FLAGS.find((f) => f === (eq === -1 ? arg : arg.slice(0, eq)));
    if (flag === undefined) {
      rest.push(arg);
      continue;
    }
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined || value === '') {
      throw new TerminalError('INVALID_ARGUMENT', `${flag} needs a value`);
    }
    values[flag] = value;
  }
  for (const flag of ['--token-file', '--tls-cert', '--tls-key', '--mcp-idle-timeout'] as const) {
    if (values[flag] !== undefined && values['--http'] === undefined) {
      throw new TerminalError('INVALID_ARGUMENT', `${flag} is only for serve --http`);
    }
  }
  const cert = values['--tls-cert'];
  const key = values['--tls-key'];
  if ((cert === undefined) !== (key === undefined)) {
    throw new TerminalError(
      'INVALID_ARGUMENT',
      'HTTPS needs both --tls-cert (the certificate chain) and --tls-key (its private key)',
    );
  }
  const idle = values['--mcp-idle-timeout'];
  const mcpIdleTimeoutMs = idle === undefined ? undefined : Number(idle);
  if (
    mcpIdleTimeoutMs !== undefined &&
    !(/^\d+$/.test(idle as string) && mcpIdleTimeoutMs <= MAX_MCP_IDLE_MS)
  ) {
    throw new TerminalError(
      'INVALID_ARGUMENT',
      `--mcp-idle-timeout takes milliseconds from 0 (never) to ${MAX_MCP_IDLE_MS}, not ${JSON.stringify(idle)}`,
    );
  }
  return {
    http: values['--http'] === undefined ? undefined : parseHttpAddress(values['--http']),
    tokenFile: values['--token-file'] === undefined ? undefined : resolve(values['--token-file']),
    tls:
      cert === undefined || key === undefined
        ? undefined
        : { cert: resolve(cert), key: resolve(key) },
    mcpIdleTimeoutMs,
    rest,
  };
}
