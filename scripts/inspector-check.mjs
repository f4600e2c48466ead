#!/usr/bin/env node
// npm run inspector:check: agent-tty driven by a third-party client, the MCP Inspector CLI, which
// starts a fresh server for each call: tools/list with its schema-portability check, terminal_start
// with --tool-arg values, terminal_close. The Inspector needs Node 22.19+; on an older Node it runs
// under Node 24 from the npm registry, while the server still runs on this Node.
// Usage: node scripts/inspector-check.mjs [server command ...]   (default: this Node, dist/main.js)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { assertEqual, createChecks, lastLines, run, TOOLS } from './smoke/checks.mjs';
import { envWithNode, installRegistryNode } from './smoke/registry-node.mjs';

const INSPECTOR_VERSION = '2.12.0';
/** The Inspector's engines field (node >=22.19.0). */
const INSPECTOR_MIN_NODE = [22, 19];

const server =
  process.argv.length > 2 ? process.argv.slice(2) : [process.execPath, resolve('dist/main.js')];
const work = mkdtempSync(join(tmpdir(), 'agent-tty-inspector-'));
const { check, summarize } = createChecks('inspector check');

function isNodeRecentEnough() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  const [needMajor, needMinor] = INSPECTOR_MIN_NODE;
  return major > needMajor || (major === needMajor && minor >= needMinor);
}

/** One Inspector CLI call against the server; returns the JSON result, throws on any error. */
function inspector(env, args) {
  const npxArgs = ['--yes', `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`, '--cli'];
  const command = [...npxArgs, '--format', 'json', ...args, '--', ...server];
  const output = run('npx', command, { env, allowFailure: true });
  let parsed;
  try {
    parsed = JSON.parse(output.stdout);
  } catch {
    throw new Error(`no JSON result (exit ${output.status}): ${lastLines(output)}`);
  }
  if (output.status !== 0 || !parsed.result) {
    throw new Error(`exit ${output.status}: ${lastLines(output)}`);
  }
  return { result: parsed.result, stderr: output.stderr };
}

async function main() {
  let env;
  const ready = await check('Inspector CLI', () => {
    let node = process.version;
    env = process.env;
    if (!isNodeRecentEnough()) {
      const installed = installRegistryNode(24, join(work, 'node-24'));
      node = installed.version;
      env = envWithNode(installed.bin);
    }
    const npxArgs = ['--yes', `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`, '--version'];
    assertEqual(run('npx', npxArgs, { env }).stdout.trim(), INSPECTOR_VERSION, 'version');
    return `${INSPECTOR_VERSION} on node ${node}; server: ${server.join(' ')}`;
  });
  if (!ready) return;

  await check('tools/list --strict', () => {
    const { result, stderr } = inspector(env, ['--method', 'tools/list', '--strict']);
    assertEqual(
      result.tools.map((t) => t.name),
      TOOLS,
      'tools',
    );
    const warnings = stderr.match(/^Warning:[^\n]*\n[^\n]*/gm) ?? [];
    // A warning is a client that may reject or misread a tool: none is allowed.
    assertEqual(warnings, [], 'schema portability warnings');
    return 'the six tools; schema portability: 0 errors, 0 warnings';
  });

  await check('tools/call terminal_start', () => {
    const toolArgs = ['command=echo inspector-ok', 'login=false', 'cols=100'];
    const args = ['--method', 'tools/call', '--tool-name', 'terminal_start'];
    const { result } = inspector(env, [...args, ...toolArgs.flatMap((a) => ['--tool-arg', a])]);
    const snapshot = result.structuredContent?.snapshot;
    if (!result.content?.[0]?.text.includes('inspector-ok')) {
      throw new Error(`no inspector-ok in ${JSON.stringify(result).slice(0, 300)}`);
    }
    assertEqual([snapshot.status, snapshot.cols], ['exited', 100], 'status and cols');
    return 'inspector-ok on screen, exited; login=false and cols=100 accepted';
  });

  await check('tools/call terminal_close (fresh server)', () => {
    const args = ['--method', 'tools/call', '--tool-name', 'terminal_close'];
    const { result } = inspector(env, [...args, '--tool-arg', 'sessionId=t1']);
    assertEqual(result.structuredContent, { sessionId: 't1', closed: false }, 'result');
    return 'closed:false for an id this server never opened';
  });
}

try {
  await main();
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(summarize());
