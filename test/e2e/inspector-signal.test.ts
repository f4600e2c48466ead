/**
 * SIGUSR1 never opens Node's inspector (a debugger port on 127.0.0.1:9229 through which any
 * local user could run code as the server's user), on Node 20, 22 and 24: it shuts the server
 * down like SIGTERM instead. The server opens no TCP port at any time. A Node other than this
 * process's comes from the npm registry (helpers/node-versions.ts); one that cannot be had is
 * skipped, saying why. npm test tries Node 20 and 24, the two ways the server starts: as it is
 * (V8 before 13) and replaced by itself with the young generation bounded (src/main.ts,
 * restartWithBoundedYoungGeneration, V8 13 on); the heavy layer adds Node 22, which starts as
 * Node 20 does.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { heavyOnly } from '../helpers/layers.js';
import { nodeBinary } from '../helpers/node-versions.js';
import { linuxOnly, listeningPorts, sessionPids } from '../helpers/processes.js';
import { EXIT_BOUND_MS, startRawRpcServer } from '../helpers/raw-rpc.js';
import { settledWithin, sleep, waitUntil } from '../helpers/wait.js';

/** Attach sockets in `tmp`'s socket directory. */
function sockets(tmp: string): string[] {
  try {
    return readdirSync(join(tmp, `agent-tty-${process.getuid?.() ?? 0}`)).filter((name) =>
      name.endsWith('.sock'),
    );
  } catch {
    return [];
  }
}

describe('SIGUSR1', { skip: linuxOnly }, () => {
  for (const [major, skip] of [
    [20, false],
    [22, heavyOnly],
    [24, false],
  ] as const) {
    it(`on Node ${major}: opens no port and shuts the server down`, { skip }, async (t) => {
      const node = await nodeBinary(major);
      if ('skip' in node) {
        t.diagnostic(node.skip);
        t.skip(node.skip);
        return;
      }
      const tmp = mkdtempSync(join(tmpdir(), 'agent-tty-usr1-'));
      const server = await startRawRpcServer([], { node: node.bin, env: { TMPDIR: tmp } }).catch(
        (err: unknown) => {
          rmSync(tmp, { recursive: true, force: true });
          throw err;
        },
      );
      try {
        const started = await server.tool('terminal_start', {
          command: 'sleep 600',
          login: false,
          // sleep prints nothing and so never becomes ready: do not wait for it.
          settleMs: 0,
        });
        assert.notEqual(started.isError, true);
        // What the server loads after start-up is loaded: the emulator and the PTY (the session
        // above), a pattern worker (a search ran in it), the attach server (its socket listens).
        const found = await server.tool('terminal_snapshot', {
          sessionId: (started.structuredContent as { sessionId: string }).sessionId,
          settleMs: 0,
          find: { pattern: 'x+' },
        });
        assert.notEqual(found.isError, true, JSON.stringify(found.structuredContent));
        await waitUntil(() => sockets(tmp).length === 1, 'the attach socket listens');
        const listed = (await server.tool('terminal_list')) as {
          structuredContent: { sessions: { pid: number }[] };
        };
        const sids = listed.structuredContent.sessions.map((s) => s.pid);
        assert.equal(sids.length, 1);
        assert.deepEqual(listeningPorts(server.pid), [], 'no port before the signal');
        const since = performance.now();
        server.child.kill('SIGUSR1');
        const seen = new Set<number>();
        while (server.isRunning() && performance.now() - since < EXIT_BOUND_MS + 500) {
          for (const port of listeningPorts(server.pid)) seen.add(port);
          await sleep(5);
        }
        assert.deepEqual(
          [...seen],
          [],
          `ports the server listened on after SIGUSR1 (${node.version})`,
        );
        assert.doesNotMatch(server.stderr(), /Debugger listening/);
        const exit = await settledWithin(server.exited(since), 3 * EXIT_BOUND_MS);
        assert.ok(exit, `exited within ${3 * EXIT_BOUND_MS} ms`);
        assert.equal(exit.signal, null, 'exited by itself');
        assert.ok(exit.afterMs < EXIT_BOUND_MS, `exited after ${Math.round(exit.afterMs)} ms`);
        await sleep(50);
        for (const sid of sids) assert.deepEqual(sessionPids(sid), [], `session ${sid} is empty`);
      } finally {
        // A test that failed before the signal ends its server as a client does, sessions and all.
        if (server.isRunning()) {
          server.child.stdin.end();
          await settledWithin(server.exited(performance.now()), 3 * EXIT_BOUND_MS);
        }
        server.child.kill('SIGKILL');
        rmSync(tmp, { recursive: true, force: true });
      }
    });
  }
});
