#!/usr/bin/env node
/**
 * The agent-tty executable: --help and --version (which work on any Node and without node-pty),
 * `doctor`, start-up checks that fail with one clear line, then the stdio server. The only
 * process.exit.
 */
import module from 'node:module';
import { isatty } from 'node:tty';
import { MIN_NODE_MAJOR } from './cli/doctor.js';
import type { HttpSetup } from './serve-http.js';
import {
  type Config,
  DEFAULT_CONFIG,
  formatOptionsHelp,
  HTTP_DEFAULT_CONFIG,
  loadConfig,
} from './shared/config.js';
import { TerminalError } from './shared/errors.js';
import type { HttpAddress } from './shared/http-address.js';
import { createLogger } from './shared/log.js';
import { parseServeArgs, type ServeArgs } from './shared/serve-args.js';
import { PACKAGE } from './shared/version.js';
import { refuseInspectorSignal } from './signals.js';
import { TOKEN_ENV } from './transport/token.js';

// Before anything else: from here on, SIGUSR1 cannot open Node's inspector port.
refuseInspectorSignal();

/**
 * Largest young-generation semi-space, in MiB: what V8 11 and 12 (Node 20, 22) use at most. V8 13
 * (Node 24) raised it to 64 MiB, which under a firehose of output grows the server's resident
 * memory by about 50-110 MiB. The flag only takes effect on the command line.
 */
const SEMI_SPACE_MIB = 16;

/**
 * On V8 13 and newer, replaces this process (same pid, same stdio, nothing read yet) with one
 * started with the semi-space bound, unless the bound is already given (also via NODE_OPTIONS).
 */
function restartWithBoundedYoungGeneration(): void {
  const execve = (process as { execve?: (file: string, args: string[], env: object) => never })
    .execve;
  const v8Major = Number(process.versions.v8.split('.')[0]);
  const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ''];
  if (v8Major < 13 || typeof execve !== 'function') return;
  if (flags.some((f) => f.includes('--max-semi-space-size'))) return;
  const args = [`--max-semi-space-size=${SEMI_SPACE_MIB}`, ...process.execArgv];
  try {
    execve.call(
      process,
      process.execPath,
      [process.execPath, ...args, ...process.argv.slice(1)],
      process.env,
    );
  } catch {
    // Not replaced (e.g. the binary cannot be run again): run on with V8's default.
  }
}

/** How to register the server with the two most used clients; --help and the terminal hint. */
const REGISTER_COMMANDS = [
  'claude mcp add --scope user --transport stdio agent-tty -- agent-tty',
  'codex mcp add agent-tty -- agent-tty',
] as const;

/**
 * One line for a person who started the server by hand in a terminal, where it would otherwise
 * sit silent and look hung. On stderr: stdout belongs to JSON-RPC.
 */
function terminalHint(): string {
  return (
    'agent-tty: this is an MCP server on stdio, waiting for a client to talk JSON-RPC; ' +
    `register it with \`${REGISTER_COMMANDS[0]}\` or \`${REGISTER_COMMANDS[1]}\`; ` +
    'agent-tty --help for more; Ctrl+C quits.'
  );
}

/** `agent-tty --help`: the commands, how to register the server, then the options (formatOptionsHelp). */
function helpText(): string {
  return [
    `${PACKAGE.name} ${PACKAGE.version}: an MCP server that gives AI agents a real interactive terminal.`,
    '',
    'Usage: agent-tty [options]          run the MCP server on stdio',
    '       agent-tty serve --http [HOST:]PORT [--token-file PATH] [options]',
    '                                    serve MCP over HTTP at /mcp (spec/http.md); HOST defaults to',
    '                                    127.0.0.1; the token is AGENT_TTY_TOKEN, the file, or generated;',
    '                                    HTTPS with --tls-cert PATH --tls-key PATH (PEM files); an MCP',
    '                                    session unused for --mcp-idle-timeout MS ends (default an hour)',
    '       agent-tty test SCRIPT.json...  replay test scripts (agent-tty test --help)',
    '       agent-tty attach [SESSION]     watch and type into a session (agent-tty attach --help)',
    '       agent-tty doctor               check this install: node-pty, shell, attach, /proc',
    '       agent-tty version              print the version (also --version, -v)',
    '',
    'Speaks MCP over stdio (stdin/stdout); logs go to stderr. Register it with your client, e.g.',
    ...REGISTER_COMMANDS.map((c) => `  ${c}`),
    '',
    'Options:',
    formatOptionsHelp([
      ['--help, -h', 'show this help and exit'],
      ['--version, -v', 'print the version and exit'],
    ]),
    '',
    'Tools: terminal_start, terminal_input, terminal_snapshot, terminal_resize, terminal_list,',
    '       terminal_close.',
    'Programs run with your permissions and environment. Docs: README.md and spec/ in the package.',
    'A problem with the install (e.g. every terminal_start fails)? Run agent-tty doctor.',
  ].join('\n');
}

function loadConfigOrFail(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  defaults?: Config,
): ReturnType<typeof loadConfig> {
  try {
    return loadConfig(argv, env, defaults);
  } catch (err) {
    if (err instanceof TerminalError) fail(err.message);
    throw err;
  }
}

function parseServeArgsOrFail(argv: readonly string[]): ServeArgs {
  try {
    return parseServeArgs(argv);
  } catch (err) {
    if (err instanceof TerminalError) fail(err.message);
    throw err;
  }
}

async function prepareHttpOrFail(address: HttpAddress, args: ServeArgs): Promise<HttpSetup> {
  const { prepareHttp } = await import('./serve-http.js');
  try {
    const setup = prepareHttp(address, args.tokenFile, process.env, args.tls);
    return { ...setup, mcpIdleTimeoutMs: args.mcpIdleTimeoutMs };
  } catch (err) {
    fail((err as Error).message);
  }
}

/** The environment sessions' programs get: the server's, without the HTTP token. */
function sessionEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { [TOKEN_ENV]: _token, ...rest } = env;
  return rest;
}

function fail(message: string): never {
  process.stderr.write(`agent-tty: ${message}\n`);
  process.exit(1);
}

async function main(argv: string[]): Promise<void> {
  // Node 22.1+ can cache compiled code between runs, which makes every later start faster.
  (module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  if (argv[0] === 'attach') {
    const { runAttachCommand } = await import('./attach/attach-command.js');
    process.exit(await runAttachCommand(argv.slice(1), process.env));
  }
  if (argv[0] !== 'test' && (argv.includes('--help') || argv.includes('-h'))) {
    process.stdout.write(`${helpText()}\n`);
    return;
  }
  if (argv[0] === 'version' || argv.includes('--version') || argv.includes('-v')) {
    process.stdout.write(`${PACKAGE.version}\n`);
    return;
  }
  if (argv[0] === 'doctor') {
    // Before the Node version check: doctor reports an old Node as one of its findings.
    const [{ runDoctorCommand }, { ensureSocketDir, socketDir }] = await Promise.all([
      import('./cli/doctor-command.js'),
      import('./attach/socket-dir.js'),
    ]);
    process.exit(
      await runDoctorCommand(argv.slice(1), {
        env: process.env,
        socketDir: socketDir(process.env),
        ensureSocketDir,
      }),
    );
  }
  const major = Number(process.versions.node.split('.')[0]);
  if (!(major >= MIN_NODE_MAJOR)) {
    fail(`Node.js ${MIN_NODE_MAJOR} or newer is required; this is ${process.version}`);
  }
  if (argv[0] === 'test') {
    const { runTestCommand } = await import('./cli/test-command.js');
    process.exit(await runTestCommand(argv.slice(1), loadConfigOrFail([], process.env)));
  }
  const serveArgs = argv[0] === 'serve' ? parseServeArgsOrFail(argv.slice(1)) : undefined;
  const config = loadConfigOrFail(
    serveArgs?.rest ?? argv,
    process.env,
    serveArgs?.http ? HTTP_DEFAULT_CONFIG : DEFAULT_CONFIG,
  );
  restartWithBoundedYoungGeneration();
  const http = serveArgs?.http && (await prepareHttpOrFail(serveArgs.http, serveArgs));
  // After the restart, which would print it twice. Clients start the server with piped stdin.
  if (!http && isatty(0) && config.logLevel !== 'silent') {
    process.stderr.write(`${terminalHint()}\n`);
  }
  const logger = createLogger(config.logLevel);
  let serve: typeof import('./serve.js').serve;
  try {
    ({ serve } = await import('./serve.js'));
  } catch (err) {
    fail(`the server could not be loaded: ${(err as Error).message.split('\n')[0]}`);
  }
  const code = await serve(config, logger, http || undefined, sessionEnv(process.env));
  process.exit(code);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`agent-tty: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
