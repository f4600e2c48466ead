#!/usr/bin/env node
// npm run clients:check: agent-tty over HTTP registered in the clients users register it with, as
// README "Remote and containers" says: Claude Code (`claude mcp add --transport http … --header`,
// then `claude mcp list` and `claude mcp get` connect) and Codex CLI (`codex mcp add --url …
// --bearer-token-env-var`, `codex mcp list`, then its app server connects, lists the tools and
// calls two). Both are installed from the npm registry at pinned versions into a temporary
// directory, and run with a temporary HOME: nothing touches the user's own configuration, and no
// login is needed. A client whose package cannot be fetched is skipped, not failed.
// Expects dist/ built (npm run build). Usage: node scripts/clients-check.mjs
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertEqual, createChecks, lastLines, run, Skip, TOOLS } from './smoke/checks.mjs';

const CLIENTS = {
  claude: { pkg: '@anthropic-ai/claude-code', version: '2.1.332' },
  codex: { pkg: '@openai/codex', version: '0.171.0' },
};
/** One npm install (each client's native binary is a download of some 180 MB, 400 MB unpacked); past it the client is skipped. */
const INSTALL_TIMEOUT_MS = 240_000;
/** One client command; `claude mcp list` connects to every server it lists. */
const COMMAND_TIMEOUT_MS = 60_000;
/** npm's words for a registry it could not reach or that has no such package. */
const FETCH_ERROR =
  /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ERR_SOCKET_TIMEOUT|E404|ETARGET|E5\d\d)\b/;

const work = mkdtempSync(join(tmpdir(), 'agent-tty-clients-'));
const token = randomBytes(32).toString('hex');
const { check, summarize } = createChecks('clients check');

// Claude Code prints a header's value in full (`claude mcp get`): everything this script prints
// goes through the mask, so the token never reaches a log. Which commands printed it is reported.
const printedToken = new Set();
const mask = (text) => String(text).replaceAll(token, '<token>');
for (const stream of ['log', 'error']) {
  const print = console[stream].bind(console);
  console[stream] = (...args) => print(...args.map((a) => (typeof a === 'string' ? mask(a) : a)));
}

/** A home of its own for the clients: their configuration, caches and state all go there. */
const home = join(work, 'home');
const project = join(work, 'project');
const clientEnv = {
  PATH: process.env.PATH,
  HOME: home,
  LANG: 'C.UTF-8',
  TERM: 'dumb',
  NO_COLOR: '1',
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_CACHE_HOME: join(home, '.cache'),
  XDG_DATA_HOME: join(home, '.local', 'share'),
  XDG_STATE_HOME: join(home, '.local', 'state'),
  CLAUDE_CONFIG_DIR: join(home, '.claude'),
  CODEX_HOME: join(home, '.codex'),
  // No telemetry, update check or error report: the check talks to the server and nothing else.
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
};

/** `npm install` of one client into its own prefix; resolves what happened, never rejects. */
function install(name) {
  const { pkg, version } = CLIENTS[name];
  const prefix = join(work, name);
  mkdirSync(prefix);
  // Scripts on: Claude Code's postinstall puts its native binary in place of a stub.
  const args = [
    'install',
    '--prefix',
    prefix,
    '--no-audit',
    '--no-fund',
    '--ignore-scripts=false',
    '--engine-strict=false',
  ];
  return new Promise((done) => {
    const child = spawn('npm', [...args, `${pkg}@${version}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: INSTALL_TIMEOUT_MS,
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (err) => done({ ok: false, fetch: false, reason: err.message }));
    child.on('close', (status, signal) => {
      if (status === 0) return done({ ok: true, prefix });
      if (signal) {
        return done({
          ok: false,
          fetch: true,
          reason: `npm install timed out after ${INSTALL_TIMEOUT_MS / 1000} s`,
        });
      }
      const code = output.match(FETCH_ERROR);
      if (code) return done({ ok: false, fetch: true, reason: `npm ${code[1]}` });
      done({ ok: false, fetch: false, reason: lastLines({ stdout: output }) });
    });
  });
}

/** Waits for an install; a fetch failure is a Skip, announced as `skipped: CLIENT: could not fetch (…)`. */
async function installed(name, pending) {
  const result = await pending;
  if (result.ok) return result.prefix;
  if (result.fetch) {
    console.log(`skipped: ${name}: could not fetch (${result.reason})`);
    throw new Skip(`could not fetch (${result.reason})`);
  }
  throw new Error(`npm install failed: ${result.reason}`);
}

/** Runs a client command with the temporary home; notes whether it printed the token. */
function client(label, command, args, env = clientEnv) {
  const result = run(command, args, {
    env,
    cwd: project,
    timeout: COMMAND_TIMEOUT_MS,
    allowFailure: true,
  });
  if (`${result.stdout}${result.stderr}`.includes(token)) printedToken.add(label);
  if (result.status !== 0)
    throw new Error(`${label} exited ${result.status}: ${lastLines(result)}`);
  return result.stdout;
}

/** The line of `text` that matches `pattern`, or an error quoting the output. */
function lineMatching(text, pattern, what) {
  const line = text.split('\n').find((l) => pattern.test(l));
  if (line === undefined)
    throw new Error(`${what}: no line matching ${pattern} in:\n${text.trim()}`);
  return line.trim();
}

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `node dist/main.js serve --http 127.0.0.1:0` with the token; its log goes to a file. */
async function startServer() {
  const logPath = join(work, 'server.log');
  const log = openSync(logPath, 'w');
  const child = spawn(
    process.execPath,
    [resolve('dist/main.js'), 'serve', '--http', '127.0.0.1:0'],
    {
      stdio: ['ignore', 'ignore', log],
      env: { ...process.env, AGENT_TTY_TOKEN: token, XDG_STATE_HOME: join(work, 'state') },
    },
  );
  closeSync(log);
  const exited = new Promise((done) => child.on('exit', (code, signal) => done({ code, signal })));
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const url = readFileSync(logPath, 'utf8').match(
      /serving MCP over HTTP at (http:\S+\/mcp)/,
    )?.[1];
    if (url) return { child, exited, url, logPath };
    if (child.exitCode !== null) break;
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`the server did not start: ${readFileSync(logPath, 'utf8').trim()}`);
}

/**
 * Codex's app server (`codex app-server`, JSON-RPC lines on stdio): what the Codex IDE
 * extension drives, and the one Codex command that connects to MCP servers without a login.
 */
class CodexAppServer {
  constructor(bin, flags) {
    this._child = spawn(bin, ['app-server', ...flags], {
      env: { ...clientEnv, AGENT_TTY_TOKEN: token },
      cwd: project,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this._pending = new Map();
    this._nextId = 1;
    this._stderr = '';
    let buffer = '';
    this._child.stdout.on('data', (chunk) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        if (line.includes(token)) printedToken.add('codex app-server');
        let message;
        try {
          message = JSON.parse(line);
        } catch {
          continue;
        }
        this._pending.get(message.id)?.(message);
      }
    });
    this._child.stderr.on('data', (chunk) => {
      this._stderr = (this._stderr + chunk).slice(-4000);
    });
    this._child.stdin.on('error', () => {});
  }

  /** One request; resolves its result, rejects with its error or after the command timeout. */
  request(method, params) {
    const id = this._nextId++;
    this._child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return new Promise((done, fail) => {
      const timer = setTimeout(() => {
        this._pending.delete(id);
        fail(
          new Error(
            `${method}: no answer in ${COMMAND_TIMEOUT_MS / 1000} s; stderr: ${this._stderr.trim()}`,
          ),
        );
      }, COMMAND_TIMEOUT_MS);
      this._pending.set(id, (message) => {
        clearTimeout(timer);
        this._pending.delete(id);
        if (message.error) fail(new Error(`${method}: ${JSON.stringify(message.error)}`));
        else done(message.result);
      });
    });
  }

  notify(method) {
    this._child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }

  async close() {
    if (this._child.exitCode !== null || this._child.signalCode !== null) return;
    const exited = new Promise((done) => this._child.once('exit', done));
    this._child.stdin.end();
    this._child.kill('SIGTERM');
    const timer = setTimeout(() => this._child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

async function checkClaude(server, pending) {
  const { version } = CLIENTS.claude;
  /** The command and its leading arguments. */
  let claude;
  const ready = await check(`claude ${version}: npm install`, async () => {
    const prefix = await installed('claude', pending);
    const bin = join(prefix, 'node_modules', '.bin', 'claude');
    // Without its postinstall the binary is a stub that says so; the package's own launcher
    // then runs the same native binary.
    const stub = statSync(bin).size < 100_000;
    const wrapper = join(prefix, 'node_modules', CLIENTS.claude.pkg, 'cli-wrapper.cjs');
    claude = (label, args) =>
      stub ? client(label, process.execPath, [wrapper, ...args]) : client(label, bin, args);
    assertEqual(
      claude('claude --version', ['--version']).trim(),
      `${version} (Claude Code)`,
      'version',
    );
    return `${CLIENTS.claude.pkg}@${version}: claude --version ok${stub ? ' (through cli-wrapper.cjs: the postinstall did not run)' : ''}`;
  });
  if (!ready) return;

  const added = await check('claude mcp add --transport http --header', () => {
    const add = (name, ...headerArgs) =>
      claude('claude mcp add', [
        'mcp',
        'add',
        '--transport',
        'http',
        name,
        server.url,
        ...headerArgs,
      ]);
    const out = add('agent-tty', '--header', `Authorization: Bearer ${token}`);
    lineMatching(
      out,
      new RegExp(`^Added HTTP MCP server agent-tty with URL: ${escapeRegExp(server.url)}`),
      'mcp add',
    );
    // The same server with a wrong token, and without the header: the list must show both refused.
    add('wrong-token', '--header', `Authorization: Bearer ${randomBytes(32).toString('hex')}`);
    add('no-header');
    return 'agent-tty; wrong-token with another token; no-header without the header';
  });
  if (!added) return;

  await check('claude mcp list', () => {
    const out = claude('claude mcp list', ['mcp', 'list']);
    const ok = lineMatching(out, /^agent-tty: /, 'agent-tty');
    const pattern = new RegExp(`^agent-tty: ${escapeRegExp(server.url)} \\(HTTP\\) - ✔ Connected$`);
    if (!pattern.test(ok)) throw new Error(`agent-tty not connected: ${ok}`);
    const refused = lineMatching(out, /^wrong-token: /, 'wrong-token');
    if (!/Failed to connect.*HTTP 401/.test(refused)) {
      throw new Error(`wrong-token not refused with 401: ${refused}`);
    }
    // Without the header Claude looks for OAuth and shows the server's 404 at /register.
    const noHeader = lineMatching(out, /^no-header: /, 'no-header');
    if (
      !/Failed to connect.*HTTP 404.*takes no OAuth: send the header Authorization: Bearer TOKEN/.test(
        noHeader,
      )
    ) {
      throw new Error(`no-header not told which header to send: ${noHeader}`);
    }
    return `${ok}; wrong-token: Failed to connect (HTTP 401); no-header: told it takes no OAuth but the header`;
  });

  await check('claude mcp get agent-tty', () => {
    const out = claude('claude mcp get', ['mcp', 'get', 'agent-tty']);
    return lineMatching(out, /^\s*Status: ✔ Connected$/, 'status');
  });
}

async function checkCodex(server, pending) {
  const { version } = CLIENTS.codex;
  let codex;
  const ready = await check(`codex ${version}: npm install`, async () => {
    const prefix = await installed('codex', pending);
    codex = join(prefix, 'node_modules', '.bin', 'codex');
    assertEqual(
      client('codex --version', codex, ['--version']).trim(),
      `codex-cli ${version}`,
      'version',
    );
    return `${CLIENTS.codex.pkg}@${version}: codex --version ok`;
  });
  if (!ready) return;

  const added = await check('codex mcp add --url --bearer-token-env-var', () => {
    const args = [
      'mcp',
      'add',
      'agent-tty',
      '--url',
      server.url,
      '--bearer-token-env-var',
      'AGENT_TTY_TOKEN',
    ];
    const out = client('codex mcp add', codex, args);
    return lineMatching(out, /^Added global MCP server 'agent-tty'\.$/, 'mcp add');
  });
  if (!added) return;

  await check('codex mcp list', () => {
    // `codex mcp list` reads the configuration only: it shows the server registered, not reached.
    const row = lineMatching(
      client('codex mcp list', codex, ['mcp', 'list']),
      /^agent-tty\s/,
      'row',
    );
    const [entry] = JSON.parse(client('codex mcp list --json', codex, ['mcp', 'list', '--json']));
    assertEqual(
      [entry.name, entry.enabled, entry.transport, entry.auth_status],
      [
        'agent-tty',
        true,
        {
          ...entry.transport,
          type: 'streamable_http',
          url: server.url,
          bearer_token_env_var: 'AGENT_TTY_TOKEN',
        },
        'bearer_token',
      ],
      'entry',
    );
    return row.replace(/\s+/g, ' ');
  });

  // Offline: no plugin sync (it looks up a code host) and a model provider on a closed local
  // port, so that starting a thread reaches no service outside this machine.
  const offline = [
    '--disable',
    'plugins',
    '-c',
    'model_providers.offline={ name = "offline", base_url = "http://127.0.0.1:9/v1" }',
    '-c',
    'model_provider=offline',
  ];
  const app = new CodexAppServer(codex, offline);
  try {
    const connected = await check('codex app-server: mcpServerStatus/list', async () => {
      await app.request('initialize', {
        clientInfo: { name: 'agent-tty-clients-check', version: '1' },
      });
      app.notify('initialized');
      const { data } = await app.request('mcpServerStatus/list', { serverName: 'agent-tty' });
      const status = data.find((s) => s.name === 'agent-tty');
      if (!status) throw new Error(`agent-tty not listed: ${JSON.stringify(data).slice(0, 300)}`);
      if (status.toolsError) throw new Error(`tools: ${status.toolsError}`);
      assertEqual(Object.keys(status.tools).sort(), [...TOOLS].sort(), 'tools');
      assertEqual(
        [status.authStatus, status.serverInfo?.name],
        ['bearerToken', 'agent-tty'],
        'auth and server',
      );
      return `connected with the bearer token: serverInfo agent-tty ${status.serverInfo.version}, the six tools`;
    });
    if (!connected) return;

    await check('codex app-server: terminal_start, terminal_close', async () => {
      const { thread } = await app.request('thread/start', { cwd: project });
      const call = (tool, args) =>
        app.request('mcpServer/tool/call', {
          server: 'agent-tty',
          threadId: thread.id,
          tool,
          arguments: args,
        });
      const started = await call('terminal_start', { command: 'echo codex-ok', login: false });
      const { sessionId, snapshot } = started.structuredContent ?? {};
      if (!started.content?.[0]?.text.includes('codex-ok') || snapshot?.status !== 'exited') {
        throw new Error(`terminal_start: ${JSON.stringify(started).slice(0, 300)}`);
      }
      const closed = await call('terminal_close', { sessionId });
      assertEqual(closed.structuredContent, { sessionId, closed: true }, 'terminal_close');
      return `codex-ok on ${sessionId}'s screen, exited; closed`;
    });
  } finally {
    await app.close();
  }
}

async function main() {
  let server;
  let installs = [];
  const started = await check('server: serve --http 127.0.0.1:0', async () => {
    server = await startServer();
    return `${server.url}, token from AGENT_TTY_TOKEN`;
  });
  if (!started) return;
  try {
    for (const dir of [home, project, clientEnv.CLAUDE_CONFIG_DIR, clientEnv.CODEX_HOME]) {
      mkdirSync(dir, { recursive: true });
    }
    // Both downloads at once.
    installs = [install('claude'), install('codex')];
    await checkClaude(server, installs[0]);
    await checkCodex(server, installs[1]);
  } finally {
    await Promise.allSettled(installs);
    await check('server: SIGTERM', async () => {
      server.child.kill('SIGTERM');
      const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
      const { code, signal } = await server.exited;
      clearTimeout(timer);
      if (code !== 0) {
        throw new Error(
          `exited ${code ?? signal}: ${lastLines({ stdout: readFileSync(server.logPath, 'utf8') })}`,
        );
      }
      return 'exited 0';
    });
  }
  const raw = [...printedToken];
  console.log(
    raw.length === 0
      ? '\nthe token: printed by no client command'
      : `\nthe token: printed in full by ${raw.join(', ')} (masked above as <token>)`,
  );
}

try {
  await main();
} finally {
  if (existsSync(work)) rmSync(work, { recursive: true, force: true });
}
process.exit(summarize());
