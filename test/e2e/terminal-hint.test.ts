/**
 * A person who runs `agent-tty` by hand in a terminal is told, in one line on stderr, that it is
 * an MCP server waiting for a client and how to register it; a client, which starts it with
 * piped stdin, gets nothing on stderr at the default log level.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import type { PtyExit, PtyHandle } from '../../src/pty/pty-handle.js';
import { spawnPty } from '../../src/pty/spawn.js';
import { SERVER } from '../helpers/paths.js';
import { startRawRpcServer } from '../helpers/raw-rpc.js';
import { sleep, waitUntil } from '../helpers/wait.js';

interface TerminalRun {
  pty: PtyHandle;
  output(): string;
  exited: Promise<PtyExit>;
  hasExited(): boolean;
}

/** Terminals a failed test left behind, so they do not keep the test process alive. */
const running = new Set<TerminalRun>();
afterEach(() => {
  for (const run of running) {
    if (!run.hasExited()) {
      process.kill(run.pty.pid, 'SIGKILL');
      run.pty.dispose();
    }
  }
  running.clear();
});

/** Runs `sh -c script` on a real terminal (stdin, and whatever the script leaves on it). */
function runInTerminal(script: string): TerminalRun {
  let output = '';
  let hasExited = false;
  let onExit: (exit: PtyExit) => void = () => undefined;
  const exited = new Promise<PtyExit>((resolve) => {
    onExit = resolve;
  });
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    TERM: 'xterm-256color',
  };
  delete env.AGENT_TTY_LOG_LEVEL;
  const pty = spawnPty(
    { file: '/bin/sh', args: ['-c', script], cwd: process.cwd(), env, cols: 200, rows: 24 },
    {
      onData: (chunk) => {
        output += Buffer.from(chunk).toString('utf8');
      },
      onExit: (exit) => {
        hasExited = true;
        pty.dispose();
        onExit(exit);
      },
    },
  );
  const run = { pty, output: () => output, exited, hasExited: () => hasExited };
  running.add(run);
  return run;
}

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

describe('started by hand in a terminal', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tty-hint-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('prints one line on stderr: what it is, how to register it, --help; Ctrl+D quits', async () => {
    const run = runInTerminal(`exec ${quote(process.execPath)} ${quote(SERVER)}`);
    await waitUntil(() => run.output().includes('Ctrl+C quits.'), 'the hint');
    const lines = run.output().split('\r\n').filter(Boolean);
    assert.equal(lines.length, 1, run.output());
    const hint = lines[0] as string;
    assert.match(hint, /^agent-tty: this is an MCP server on stdio, waiting for a client/);
    assert.ok(
      hint.includes('claude mcp add --scope user --transport stdio agent-tty -- agent-tty'),
    );
    assert.ok(hint.includes('codex mcp add agent-tty -- agent-tty'));
    assert.ok(hint.includes('agent-tty --help'));
    run.pty.write(Buffer.from('\x04'));
    assert.deepEqual(await run.exited, { exitCode: 0, signal: null });
  });

  it('prints it on stderr, never on stdout', async () => {
    const errFile = join(dir, 'stderr.txt');
    const run = runInTerminal(
      `exec ${quote(process.execPath)} ${quote(SERVER)} 2>${quote(errFile)}`,
    );
    await waitUntil(
      () => existsSync(errFile) && readFileSync(errFile, 'utf8').includes('Ctrl+C quits.'),
      'the hint',
    );
    await sleep(200);
    assert.equal(run.output(), '', 'nothing on stdout (the terminal)');
    assert.equal(readFileSync(errFile, 'utf8').split('\n').filter(Boolean).length, 1);
    run.pty.write(Buffer.from('\x04'));
    assert.deepEqual(await run.exited, { exitCode: 0, signal: null });
  });

  it('stays quiet at --log-level silent', async () => {
    const run = runInTerminal(
      `exec ${quote(process.execPath)} ${quote(SERVER)} --log-level silent`,
    );
    await sleep(700);
    assert.equal(run.output(), '');
    run.pty.write(Buffer.from('\x04'));
    assert.deepEqual(await run.exited, { exitCode: 0, signal: null });
  });
});

describe('started by a client (piped stdin)', () => {
  it('prints nothing on stderr at the default log level', async () => {
    const server = await startRawRpcServer();
    const listed = await server.request('tools/list');
    assert.ok(listed.result, 'the server answers');
    await sleep(700);
    await server.stop();
    assert.equal(server.stderr(), '');
  });
});
