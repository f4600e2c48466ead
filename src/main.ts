#!/usr/bin/env node
/**
 * The agent-tty executable: --help and --version (which work on any Node and without node-pty),
 * start-up checks that fail with one clear line, then the stdio server. The only process.exit.
 */
import module from 'node:module';
import { ConfigError, loadConfig, OPTIONS } from './config.js';
import { createLogger } from './log.js';
import { PACKAGE } from './version.js';

const MIN_NODE_MAJOR = 20;

function helpText(): string {
  const flags = OPTIONS.map(
    (o) => `  ${`${o.flag} <value>`.padEnd(24)}${o.help}\n${' '.repeat(26)}env ${o.env}`,
  );
  return [
    `${PACKAGE.name} ${PACKAGE.version}: an MCP server that gives AI agents a real interactive terminal.`,
    '',
    'Usage: agent-tty [options]          run the MCP server on stdio',
    '       agent-tty test SCRIPT.json...  replay test scripts (agent-tty test --help)',
    '',
    'Speaks MCP over stdio (stdin/stdout); logs go to stderr. Register it with your client, e.g.',
    '  claude mcp add --scope user --transport stdio agent-tty -- agent-tty',
    '  codex mcp add agent-tty -- agent-tty',
    '',
    'Options:',
    '  --help                  show this help and exit',
    '  --version               print the version and exit',
    ...flags,
    '',
    'Tools: terminal_start, terminal_input, terminal_snapshot, terminal_resize, terminal_list, terminal_close.',
    'Programs run with your permissions and environment. Docs: README.md and spec/ in the package.',
  ].join('\n');
}

function loadConfigOrFail(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ReturnType<typeof loadConfig> {
  try {
    return loadConfig(argv, env);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
}

function fail(message: string): never {
  process.stderr.write(`agent-tty: ${message}\n`);
  process.exit(1);
}

async function main(argv: string[]): Promise<void> {
  // Node 22.1+ can cache compiled code between runs, which makes every later start faster.
  (module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  if (argv[0] !== 'test' && (argv.includes('--help') || argv.includes('-h'))) {
    process.stdout.write(`${helpText()}\n`);
    return;
  }
  if (argv.includes('--version') || argv.includes('-v')) {
    process.stdout.write(`${PACKAGE.version}\n`);
    return;
  }
  const major = Number(process.versions.node.split('.')[0]);
  if (!(major >= MIN_NODE_MAJOR)) {
    fail(`Node.js ${MIN_NODE_MAJOR} or newer is required; this is ${process.version}`);
  }
  if (argv[0] === 'test') {
    const { runTestCommand } = await import('./cli/test-command.js');
    process.exit(await runTestCommand(argv.slice(1), loadConfigOrFail([], process.env)));
  }
  const config = loadConfigOrFail(argv, process.env);
  const logger = createLogger(config.logLevel);
  let serve: typeof import('./serve.js').serve;
  try {
    ({ serve } = await import('./serve.js'));
  } catch (err) {
    fail(`the server could not be loaded: ${(err as Error).message.split('\n')[0]}`);
  }
  const code = await serve(config, logger);
  process.exit(code);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`agent-tty: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
