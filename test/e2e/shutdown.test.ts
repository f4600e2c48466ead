/**
 * Shutdown leaves nothing behind: stdin EOF, SIGINT, SIGTERM, SIGHUP and a broken stdout pipe
 * each close every session (processes that ignore hangup included), remove the sessions' private
 * directories (shell history, shell start-up files) and end the server within 1 s.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isAlive } from '../helpers/processes.js';
import { EXIT_BOUND_MS, type RawRpcServer, startRawRpcServer } from '../helpers/raw-rpc.js';
import { sleep } from '../helpers/wait.js';

/**
 * Starts three sessions, two of them ignoring hangup and terminate (one an interactive bash, with
 * its shell start-up files), and returns every pid they run.
 */
async function startSessions(server: RawRpcServer, home: string): Promise<number[]> {
  const pids: number[] = [];
  for (const command of ['sleep 600', `trap '' HUP INT TERM; sleep 601 & echo $!; wait`]) {
    const result = (await server.tool('terminal_start', {
      command,
      login: false,
      settleMs: 300,
    })) as { structuredContent: { snapshot: { screen: string[] } } };
    const child = Number(result.structuredContent.snapshot.screen[0]);
    if (child) pids.push(child);
  }
  const shell = (await server.tool('terminal_start', {
    shell: 'bash',
    login: false,
    env: { HOME: home, PS1: '$ ' },
  })) as { structuredContent: { sessionId: string } };
  await server.tool('terminal_input', {
    sessionId: shell.structuredContent.sessionId,
    actions: [{ type: 'text', text: "trap '' HUP TERM\r" }],
  });
  const listed = (await server.tool('terminal_list')) as {
    structuredContent: { sessions: { pid: number }[] };
  };
  pids.push(...listed.structuredContent.sessions.map((s) => s.pid));
  return [...new Set(pids)];
}

/** The sessions' private directories (shell history, shell start-up files) in `tmp`. */
function privateDirs(tmp: string): string[] {
  return readdirSync(tmp).filter((name) => /^agent-tty-(history|shell)-/.test(name));
}

const TRIGGERS: [string, (server: RawRpcServer) => void][] = [
  ['stdin EOF', (s) => s.child.stdin.end()],
  ['SIGINT', (s) => s.child.kill('SIGINT')],
  ['SIGTERM', (s) => s.child.kill('SIGTERM')],
  ['SIGHUP', (s) => s.child.kill('SIGHUP')],
  [
    'a broken stdout pipe',
    (s) => {
      s.child.stdout.destroy();
      // The next reply the server writes hits EPIPE.
      s.child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 999, method: 'tools/call', params: { name: 'terminal_list', arguments: {} } })}\n`,
      );
    },
  ],
];

/** Starts a server in `tmp`, its sessions, shuts it down with `trigger`, and checks what is left. */
async function shutDown(trigger: (server: RawRpcServer) => void, tmp: string): Promise<void> {
  const server = await startRawRpcServer([], { TMPDIR: tmp });
  const pids = await startSessions(server, join(tmp, 'home'));
  assert.ok(pids.length >= 4, `sessions started: ${pids}`);
  for (const pid of pids) assert.equal(isAlive(pid), true);
  assert.equal(privateDirs(tmp).length, 4, `${privateDirs(tmp)}`);
  const since = performance.now();
  trigger(server);
  const exit = await server.exited(since);
  assert.ok(exit.afterMs < EXIT_BOUND_MS, `exited after ${Math.round(exit.afterMs)} ms`);
  assert.equal(exit.signal, null, 'exited by itself, not killed');
  await sleep(50);
  for (const pid of pids) assert.equal(isAlive(pid), false, `pid ${pid} is gone`);
  assert.deepEqual(privateDirs(tmp), [], 'no private directory is left');
}

describe('shutdown', () => {
  for (const [name, trigger] of TRIGGERS) {
    it(`on ${name}: closes every session, removes their private files and exits within 1 s`, async () => {
      const tmp = mkdtempSync(join(tmpdir(), 'agent-tty-shutdown-'));
      mkdirSync(join(tmp, 'home'));
      try {
        await shutDown(trigger, tmp);
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    });
  }
});
