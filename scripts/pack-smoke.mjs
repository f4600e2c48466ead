#!/usr/bin/env node
// npm run pack:smoke: packs agent-tty and installs the tarball as a user does (npm install -g,
// into a temporary prefix), with this machine's Node and with Node 20, 22 and 24 from the npm
// registry (those this one is not); then runs the installed `agent-tty`: --version, version,
// --help, `agent-tty doctor` (exit 0), an MCP session over stdio; README's container recipe
// (`serve --http 0.0.0.0:PORT --token-file`) over HTTP. Also: on Node 18 it must refuse
// to serve in one line; with node-pty unloadable it must serve, fail terminal_start with
// SPAWN_FAILED naming the fix, and `agent-tty doctor` must exit 1 naming it too.
// And README's install lines, as written, in a copy of this clone, into a fresh global prefix.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { assertEqual, createChecks, run, Skip, TOOLS } from './smoke/checks.mjs';
import { envWithNode, installRegistryNode } from './smoke/registry-node.mjs';

const PKG = JSON.parse(readFileSync('package.json', 'utf8'));
/**
 * Everything the tarball may hold: the built server (no source maps) with the licence notices of
 * what it bundles (esbuild's `.LEGAL.txt` beside a chunk), its docs, package.json.
 */
const SHIPPED =
  /^package\/(dist\/.+\.js|dist\/.+\.js\.LEGAL\.txt|spec\/.+|README\.md|LICENSE|CHANGELOG\.md|package\.json)$/;
const REQUIRED = ['dist/main.js', 'spec/tools.schema.json', 'CHANGELOG.md'];
const THIS_MAJOR = Number(process.versions.node.split('.')[0]);

const work = mkdtempSync(join(tmpdir(), 'agent-tty-smoke-'));
const { check, summarize } = createChecks('pack smoke');

/** npm pack into the work directory (prepack builds dist/, no maps); checks what the tarball holds. */
function packTarball() {
  run('npm', ['pack', '--pack-destination', work]);
  const name = readdirSync(work).find((f) => f.endsWith('.tgz'));
  const tarball = join(work, name);
  const entries = run('tar', ['-tzf', tarball]).stdout.trim().split('\n');
  const stray = entries.filter((e) => !SHIPPED.test(e));
  if (stray.length) throw new Error(`unexpected files: ${stray.join(', ')}`);
  const missing = REQUIRED.filter((f) => !entries.includes(`package/${f}`));
  if (!entries.some((e) => e.startsWith('package/dist/chunks/'))) missing.push('dist/chunks/');
  if (missing.length) throw new Error(`missing: ${missing.join(', ')}`);
  return { tarball, detail: `${name}, ${entries.length} files` };
}

/**
 * npm install -g into `prefix`, run by `node` (first on PATH, so node-gyp builds for it), as
 * README says, or with `--ignore-scripts` (no script runs, nothing is compiled).
 */
function installGlobally(tarball, node, prefix, { ignoreScripts = false } = {}) {
  // npm's strict-allow-scripts preflight fails with ENOENT if <prefix>/lib does not exist yet.
  mkdirSync(join(prefix, 'lib'), { recursive: true });
  const flags = ignoreScripts
    ? ['--ignore-scripts', '--no-audit', '--no-fund']
    : ['--allow-scripts=node-pty', '--strict-allow-scripts', '--no-audit', '--no-fund'];
  run('npm', ['install', '-g', '--prefix', prefix, ...flags, tarball], { env: node.env });
  const [loaded] = ptyModules(prefix);
  if (!loaded) throw new Error('node-pty has no native module (not built, no prebuild)');
  // node-pty execs the spawn-helper next to its module (macOS); 1.1.0's prebuilt one lacks +x.
  const helper = join(dirname(loaded.file), 'spawn-helper');
  const helperNote =
    existsSync(helper) && !(statSync(helper).mode & 0o111) ? ', spawn-helper NOT executable' : '';
  return {
    bin: join(prefix, 'bin', 'agent-tty'),
    detail: `node-pty from ${loaded.dir}${helperNote}`,
  };
}

/**
 * node-pty's native modules in an install, in the order node-pty tries them: the prebuild where
 * node-pty ships one (Linux x64 and arm64 with glibc, macOS), build/Release where it compiled.
 */
function ptyModules(prefix) {
  const root = join(prefix, 'lib/node_modules', PKG.name, 'node_modules/node-pty');
  return ['build/Release', `prebuilds/${process.platform}-${process.arch}`]
    .map((dir) => ({ dir, file: join(root, dir, 'pty.node') }))
    .filter(({ file }) => existsSync(file));
}

function checkVersionAndHelp(bin, env) {
  assertEqual(run(bin, ['--version'], { env }).stdout.trim(), PKG.version, '--version');
  assertEqual(run(bin, ['version'], { env }).stdout.trim(), PKG.version, 'version');
  const help = run(bin, ['--help'], { env }).stdout;
  const unmentioned = TOOLS.filter((tool) => !help.includes(tool));
  if (unmentioned.length) throw new Error(`--help does not mention ${unmentioned.join(', ')}`);
  return `${PKG.version}; --help lists the six tools`;
}

/** doctor's checks look at the user's shell: give them one with command marks. */
function doctorEnv(env) {
  return existsSync('/bin/bash') ? { ...env, SHELL: '/bin/bash' } : env;
}

/** `agent-tty doctor` of the installed copy: exit 0, every check ok. */
function checkDoctor(bin, env) {
  const result = run(bin, ['doctor'], { env: doctorEnv(env), allowFailure: true });
  if (result.status !== 0) {
    throw new Error(`agent-tty doctor exited ${result.status}: ${result.stdout}${result.stderr}`);
  }
  return result.stdout.trim().split('\n').at(-1);
}

/** initialize, tools/list, then one terminal from start to close, through the SDK's Client. */
async function checkSession(bin, env) {
  const transport = new StdioClientTransport({ command: bin, env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const client = new Client({ name: 'agent-tty-pack-smoke', version: PKG.version });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    assertEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort(), 'tools/list');
    const args = { command: 'echo smoke-ok', login: false };
    const started = await client.callTool({ name: 'terminal_start', arguments: args });
    const { sessionId, snapshot } = started.structuredContent ?? {};
    if (started.isError || !snapshot?.screen.some((line) => line.includes('smoke-ok'))) {
      throw new Error(`terminal_start: ${JSON.stringify(started.structuredContent)}`);
    }
    assertEqual(snapshot.status, 'exited', 'terminal_start status');
    const closed = await client.callTool({ name: 'terminal_close', arguments: { sessionId } });
    assertEqual(closed.structuredContent?.closed, true, 'terminal_close closed');
    return `6 tools; ${sessionId} showed smoke-ok, exited, closed`;
  } catch (err) {
    throw new Error(`${err.message}${stderr ? `; server stderr: ${stderr.trim()}` : ''}`);
  } finally {
    await client.close();
  }
}

/**
 * README's container recipe with the installed command: `agent-tty serve --http 0.0.0.0:PORT
 * --token-file FILE` (a file of mode 600), reached with the SDK's Streamable HTTP client and the
 * token; SIGTERM then ends it with exit 0.
 */
async function checkServeHttp(bin, env) {
  const tokenFile = join(work, 'token');
  const token = randomBytes(32).toString('hex');
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  const { AGENT_TTY_TOKEN: _none, ...rest } = env;
  const child = spawn(bin, ['serve', '--http', '0.0.0.0:0', '--token-file', tokenFile], {
    env: rest,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal)),
  );
  try {
    const url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line: ${stderr}`)), 15_000);
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
        const found = /serving MCP over HTTP at http:\/\/0\.0\.0\.0:(\d+)\/mcp/.exec(stderr);
        if (found) {
          clearTimeout(timer);
          resolve(`http://127.0.0.1:${found[1]}/mcp`);
        }
      });
      void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: 'agent-tty-pack-smoke', version: PKG.version });
    await client.connect(transport);
    const { tools } = await client.listTools();
    assertEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort(), 'tools/list');
    const started = await client.callTool({
      name: 'terminal_start',
      arguments: { command: 'echo http-ok', login: false },
    });
    if (!started.structuredContent?.snapshot?.screen.some((l) => l.includes('http-ok'))) {
      throw new Error(`terminal_start: ${JSON.stringify(started.structuredContent)}`);
    }
    await client.close();
    child.kill('SIGTERM');
    assertEqual(await exited, 0, 'exit code after SIGTERM');
    if (stderr.includes(token)) throw new Error('the token is in the server log');
    return `6 tools over ${url.replace('127.0.0.1', '0.0.0.0')}; http-ok shown; SIGTERM exit 0`;
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

/** What a broken node-pty's errors must name: the reinstall and the rebuild. */
const FIX = /npm install -g --allow-scripts=node-pty agent-tty.*npm rebuild node-pty/;

/** With node-pty unloadable: initialize and tools/list work, terminal_start is SPAWN_FAILED. */
async function checkBrokenSession(bin, env) {
  const transport = new StdioClientTransport({ command: bin, env, stderr: 'pipe' });
  transport.stderr?.on('data', () => {});
  const client = new Client({ name: 'agent-tty-pack-smoke', version: PKG.version });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    assertEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort(), 'tools/list');
    const args = { command: 'echo smoke-ok', login: false };
    const started = await client.callTool({ name: 'terminal_start', arguments: args });
    const error = started.structuredContent?.error;
    if (!started.isError || error?.code !== 'SPAWN_FAILED' || !FIX.test(error.message)) {
      throw new Error(`terminal_start: ${JSON.stringify(started.structuredContent)}`);
    }
    return 'the server answers; terminal_start is SPAWN_FAILED naming the fix';
  } finally {
    await client.close();
  }
}

/** Starts the server, sends initialize and keeps stdin open until the server exits on its own. */
function serveUntilExit(bin, env, timeoutMs = 10_000) {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'agent-tty-pack-smoke', version: PKG.version },
    },
  };
  return new Promise((resolve, reject) => {
    const child = spawn(bin, [], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdin.on('error', () => {}); // EPIPE once the server has exited
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`still running after ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
  });
}

/** The server exited 1 with exactly one line on stderr, matching `pattern`. */
function assertOneLineExit({ code, stderr }, pattern) {
  const lines = stderr.trim().split('\n');
  if (code !== 1 || lines.length !== 1 || !pattern.test(lines[0])) {
    throw new Error(`exit ${code}, stderr: ${JSON.stringify(stderr)}`);
  }
  return lines[0];
}

/**
 * The shell lines of README's code block marked `<!-- pack-smoke: MARK -->` (the line before its
 * opening fence).
 */
function readmeBlock(mark) {
  const readme = readFileSync('README.md', 'utf8');
  const at = readme.indexOf(`<!-- pack-smoke: ${mark} -->\n\`\`\`sh\n`);
  if (at < 0) throw new Error(`README has no sh block marked "pack-smoke: ${mark}"`);
  const start = readme.indexOf('\n', readme.indexOf('```sh', at)) + 1;
  const end = readme.indexOf('\n```', start);
  return readme.slice(start, end);
}

/**
 * README's install lines as written, run by sh -e in a copy of this clone's files (tracked and
 * untracked, not ignored: no node_modules, no dist) with a global prefix of their own; then the
 * installed `agent-tty` serves a session. The registry line waits for publication.
 */
async function checkReadmeInstall(node) {
  const script = readmeBlock('run in a copy of the clone');
  const registry = readmeBlock('not run before publication');
  assertEqual(registry, `npm install -g --allow-scripts=node-pty ${PKG.name}`, 'registry line');
  const clone = join(work, 'clone');
  const files = run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'])
    .stdout.split('\0')
    .filter((f) => f && existsSync(f));
  for (const file of files) cpSync(file, join(clone, file), { recursive: true });
  const prefix = join(work, 'prefix-readme');
  // A global prefix as npm finds one: it exists, with its lib/ (npm install -g makes bin/).
  mkdirSync(join(prefix, 'lib'), { recursive: true });
  const env = {
    ...node.env,
    npm_config_prefix: prefix,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    PATH: `${join(prefix, 'bin')}:${node.env.PATH}`,
  };
  writeFileSync(join(work, 'readme-install.sh'), `${script}\n`);
  run('sh', ['-e', join(work, 'readme-install.sh')], { cwd: clone, env, timeout: 600_000 });
  const bin = join(prefix, 'bin', 'agent-tty');
  if (!existsSync(bin)) throw new Error(`no ${bin} after: ${script.replaceAll('\n', '; ')}`);
  const lines = script.split('\n').length;
  return `${lines} lines; ${checkVersionAndHelp(bin, env)}; ${await checkSession(bin, env)}`;
}

async function smokeNode(tarball, node, prefix) {
  const label = `node ${node.version}`;
  let bin;
  const installed = await check(`${label}: npm install -g`, () => {
    const result = installGlobally(tarball, node, prefix);
    bin = result.bin;
    return result.detail;
  });
  if (!installed) return undefined;
  await check(`${label}: --version, version, --help`, () => checkVersionAndHelp(bin, node.env));
  await check(`${label}: agent-tty doctor`, () => checkDoctor(bin, node.env));
  await check(`${label}: MCP session`, () => checkSession(bin, node.env));
  return bin;
}

async function main() {
  let tarball;
  const packed = await check('npm pack', () => {
    const result = packTarball();
    tarball = result.tarball;
    return result.detail;
  });
  if (!packed) return;

  const here = { version: process.version, env: envWithNode(process.execPath) };
  const prefix = join(work, `prefix-${THIS_MAJOR}`);
  const bin = await smokeNode(tarball, here, prefix);
  if (bin) {
    await check(
      `node ${here.version}: serve --http 0.0.0.0 --token-file (README's container recipe)`,
      () => checkServeHttp(bin, here.env),
    );
  }

  for (const major of [20, 22, 24]) {
    let other;
    await check(`node ${major} from the npm registry`, () => {
      if (THIS_MAJOR === major) throw new Skip(`this Node is ${major} already`);
      const node = installRegistryNode(major, join(work, `node-${major}`));
      // Its own headers, so node-gyp needs no download (and ignores a configured nodedir).
      other = {
        version: node.version,
        env: envWithNode(node.bin, { npm_config_nodedir: node.root }),
      };
      return node.version;
    });
    if (other) await smokeNode(tarball, other, join(work, `prefix-${major}`));
  }

  await check(`node ${here.version}: npm install -g --ignore-scripts`, async () => {
    const prefixNoScripts = join(work, 'prefix-no-scripts');
    let installed;
    try {
      installed = installGlobally(tarball, here, prefixNoScripts, { ignoreScripts: true });
    } catch (err) {
      // Where node-pty ships no binary (musl, other CPUs) it must be compiled by its script.
      if (/no native module/.test(err.message)) throw new Skip(err.message);
      throw err;
    }
    return `${installed.detail}; ${await checkSession(installed.bin, here.env)}`;
  });

  await check(`node ${here.version}: README's install lines`, () => checkReadmeInstall(here));

  if (!bin) return;
  let node18;
  await check('node 18 from the npm registry', () => {
    const node = installRegistryNode(18, join(work, 'node-18'));
    node18 = { version: node.version, env: envWithNode(node.bin) };
    return node.version;
  });
  if (node18) {
    // npm 11 does not run on Node 18: run the copy installed above under Node 18.
    await check(`node ${node18.version}: --version, --help`, () =>
      checkVersionAndHelp(bin, node18.env),
    );
    await check(`node ${node18.version}: refuses to serve`, async () =>
      assertOneLineExit(await serveUntilExit(bin, node18.env), /Node\.js 20 or newer/),
    );
  }

  await check('node-pty unloadable: serves, SPAWN_FAILED, doctor exits 1', async () => {
    const files = ptyModules(prefix).map(({ file }) => file);
    for (const file of files) renameSync(file, `${file}.off`);
    try {
      const failed = await checkBrokenSession(bin, here.env);
      const doctor = run(bin, ['doctor'], { env: doctorEnv(here.env), allowFailure: true });
      const line = doctor.stdout.split('\n').find((l) => l.includes('node-pty')) ?? '';
      if (doctor.status !== 1 || !line.startsWith('problem') || !FIX.test(line)) {
        throw new Error(`agent-tty doctor exited ${doctor.status}: ${doctor.stdout}`);
      }
      return `${failed}; doctor exits 1 naming the fix`;
    } finally {
      for (const file of files) renameSync(`${file}.off`, file);
    }
  });
}

try {
  await main();
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(summarize());
