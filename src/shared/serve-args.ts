/**
 * The options only `agent-tty serve` takes (spec/http.md): `--http [HOST:]PORT` and
 * `--token-file PATH`, taken out of the command line; the rest are the server's usual options
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
  /** Everything else, for loadConfig. */
  readonly rest: readonly string[];
}

const FLAGS = ['--http', '--token-file'] as const;

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
  if (values['--token-file'] !== undefined && values['--http'] === undefined) {
    throw new TerminalError('INVALID_ARGUMENT', '--token-file is only for serve --http');
  }
  return {
    http: values['--http'] === undefined ? undefined : parseHttpAddress(values['--http']),
    tokenFile: values['--token-file'] === undefined ? undefined : resolve(values['--token-file']),
    rest,
  };
}
