/**
 * SIGUSR1 never opens Node's inspector (a debugger port on 127.0.0.1:9229 through which any
 * local user could run code as the server's user), on Node 20, 22 and 24: it shuts the server
 * down like SIGTERM instead. The server opens no TCP port at any time. Node 22 and 24 come from
 * the npm registry (helpers/node-versions.ts); one that cannot be had is skipped, saying why.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { nodeBinary } from '../helpers/node-versions.js';
import { linuxOnly, listeningPorts, sessionPids } from '../helpers/processes.js';
import { EXIT_BOUND_MS, startRawRpcServer } from '../helpers/raw-rpc.js';
import { sleep } from '../helpers/wait.js';

/** What the server loads after start-up (emulator, PTY, pattern workers) is loaded by then. */
const WARM_MS = 800;

describe('SIGUSR1', { skip: linuxOnly }, () => {
  for (const major of [20, 22, 24]) {
    it(`on Node ${major}: opens no port and shuts the server down`, async (t) => {
      const node = await nodeBinary(major);
      if ('skip' in node) {
        t.diagnostic(node.skip);
        t.skip(node.skip);
        return;
      }
      const tmp = mkdtempSync(join(tmpdir(), 'agent-tty-usr1-'));
      const server = await startRawRpcServer([], { node: node.bin, env: { TMPDIR: tmp } });
      try {
        const started = await server.tool('terminal_start', {
          command: 'sleep 600',
          login: false,
          // sleep prints nothing and so never becomes ready: do not wait for it.
          settleMs: 0,
        });
        assert.notEqual(started.isError, true);
        await sleep(WARM_MS);
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
        const exit = await Promise.race([server.exited(since), sleep(3 * EXIT_BOUND_MS)]);
        assert.ok(exit, `exited within ${3 * EXIT_BOUND_MS} ms`);
        assert.equal(exit.signal, null, 'exited by itself');
        assert.ok(exit.afterMs < EXIT_BOUND_MS, `exited after ${Math.round(exit.afterMs)} ms`);
        await sleep(50);
        for (const sid of sids) assert.deepEqual(sessionPids(sid), [], `session ${sid} is empty`);
      } finally {
        server.child.kill('SIGKILL');
        rmSync(tmp, { recursive: true, force: true });
      }
    });
  }
});
