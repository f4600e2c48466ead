/**
 * Shutdown leaves nothing behind: stdin EOF, SIGINT, SIGTERM, SIGHUP and a broken stdout pipe
 * each close every session (processes that ignore hangup included) and end the server within 1 s.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAlive } from '../helpers/processes.js';
import { EXIT_BOUND_MS, type RawRpcServer, startRawRpcServer } from '../helpers/raw-rpc.js';
import { sleep } from '../helpers/wait.js';

/** Starts two sessions, one of them ignoring hangup, and returns every pid they run. */
async function startSessions(server: RawRpcServer): Promise<number[]> {
  const pids: number[] = [];
  for (const command of ['sleep 600', `trap '' HUP INT TERM; sleep 601 & echo $!; wait`]) {
    const result = (await server.tool('terminal_start', {
      command,
      login: false,
      settleMs: 300,
    })) as { structuredContent: { snapshot: { screen: string[] } } };
    const listed = (await server.tool('terminal_list')) as {
      structuredContent: { sessions: { pid: number }[] };
    };
    pids.push(...listed.structuredContent.sessions.map((s) => s.pid));
    const child = Number(result.structuredContent.snapshot.screen[0]);
    if (child) pids.push(child);
  }
  return [...new Set(pids)];
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

describe('shutdown', () => {
  for (const [name, trigger] of TRIGGERS) {
    it(`on ${name}: closes every session and exits within 1 s`, async () => {
      const server = await startRawRpcServer();
      const pids = await startSessions(server);
      assert.ok(pids.length >= 3, `sessions started: ${pids}`);
      for (const pid of pids) assert.equal(isAlive(pid), true);
      const since = performance.now();
      trigger(server);
      const exit = await server.exited(since);
      assert.ok(exit.afterMs < EXIT_BOUND_MS, `exited after ${Math.round(exit.afterMs)} ms`);
      assert.equal(exit.signal, null, 'exited by itself, not killed');
      await sleep(50);
      for (const pid of pids) assert.equal(isAlive(pid), false, `pid ${pid} is gone`);
    });
  }
});
