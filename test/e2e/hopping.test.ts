/**
 * Close and shutdown end every process of the terminal's session even when processes keep
 * changing pid and process group without leaving the session (fork, parent exits, child
 * setpgid(0, 0)): nothing with the session's id is left once close returns or the server exits
 * (on stdio, or over HTTP with AGENT_TTY_TEST_TRANSPORT=http, where stdin does not end the server).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connectHttp, newToken, startHttpServer } from '../helpers/http-server.js';
import { FIXTURES } from '../helpers/paths.js';
import { linuxOnly, sessionPids } from '../helpers/processes.js';
import { python, which } from '../helpers/programs.js';
import { EXIT_BOUND_MS, startRawRpcServer } from '../helpers/raw-rpc.js';
import { type Harness, startServer, TEST_TRANSPORT } from '../helpers/server.js';
import { sleep } from '../helpers/wait.js';

const skip = linuxOnly || (which('python3') ? false : 'python3 missing');
/** The interpreter itself, not a version manager's shim that takes a second to start it. */
const PYTHON = skip ? 'python3' : python();
/** Two hoppers that give up by themselves after 30 s, so a failed run leaves nothing for long. */
const HOPPER = `${PYTHON} ${join(FIXTURES, 'hopper.py')} ${process.env.HOPPERS ?? 2} 30`;
const TRIALS = 5;

/** What the fixture prints once each hopper has hopped eight times (it reports its own hops). */
const HOPPING = { type: 'wait', pattern: '^HOPPING$', timeoutMs: 30_000 };

/** Watches the session for `ms` and returns every pid still seen in it. */
async function survivorsOver(sid: number, ms: number): Promise<number[]> {
  const seen = new Set<number>();
  const deadline = performance.now() + ms;
  do {
    for (const pid of sessionPids(sid)) seen.add(pid);
    await sleep(10);
  } while (performance.now() < deadline);
  return [...seen];
}

describe('processes that hop between process groups', { skip }, () => {
  let h: Harness;
  before(async () => {
    h = await startServer();
  });
  after(() => h.close());

  it(`are gone when terminal_close returns (${TRIALS} trials)`, async () => {
    for (let trial = 1; trial <= TRIALS; trial++) {
      const { id } = await h.start({ command: HOPPER, login: false, settleMs: 0 });
      const list = await h.call('terminal_list');
      const sid = list.data.sessions?.find((s) => s.sessionId === id)?.pid as number;
      const hopping = await h.input(id, [HOPPING]);
      assert.equal(hopping.isError, false, hopping.text);
      const closed = await h.call('terminal_close', { sessionId: id });
      assert.equal(closed.data.closed, true);
      const left = await survivorsOver(sid, 300);
      assert.deepEqual(left, [], `trial ${trial}: session ${sid} still runs ${left}`);
    }
  });
});

/** A server to shut down: its session's id, a way to end it, and how long after `since` it exited. */
interface Ending {
  readonly sid: number;
  end(trigger: 'stdin EOF' | NodeJS.Signals): void;
  exitedAfter(since: number): Promise<number>;
}

/** Runs `setUp`; if it fails, ends the server it was setting up before passing the failure on. */
async function endingOnFailure<T>(setUp: () => Promise<T>, endServer: () => void): Promise<T> {
  try {
    return await setUp();
  } catch (error) {
    endServer();
    throw error;
  }
}

/** A server, over stdio or HTTP as TEST_TRANSPORT says, running HOPPER in one session. */
async function startHopping(): Promise<Ending> {
  const start = { command: HOPPER, login: false, settleMs: 300 };
  if (TEST_TRANSPORT === 'http') {
    const token = newToken();
    const server = await startHttpServer({ env: { AGENT_TTY_TOKEN: token } });
    const client = await connectHttp(server.url, token);
    const list = await endingOnFailure(
      async () => {
        const { id } = await client.start(start);
        const hopping = await client.input(id, [HOPPING]);
        assert.equal(hopping.isError, false, hopping.text);
        return client.call('terminal_list');
      },
      () => server.child.kill('SIGTERM'),
    );
    return {
      sid: list.data.sessions?.[0]?.pid as number,
      end: (trigger) => {
        if (trigger === 'stdin EOF') throw new Error('stdin does not end an HTTP server');
        server.child.kill(trigger);
      },
      // The client stays connected through the shutdown, as an agent's would.
      exitedAfter: async (since) => {
        await server.exited;
        const afterMs = performance.now() - since;
        await client.close();
        return afterMs;
      },
    };
  }
  const server = await startRawRpcServer();
  const listed = await endingOnFailure(
    async () => {
      const started = (await server.tool('terminal_start', start)) as {
        structuredContent: { sessionId: string };
      };
      const hopping = await server.tool('terminal_input', {
        sessionId: started.structuredContent.sessionId,
        actions: [HOPPING],
      });
      assert.notEqual(hopping.isError, true, JSON.stringify(hopping));
      return (await server.tool('terminal_list')) as {
        structuredContent: { sessions: { pid: number }[] };
      };
    },
    () => server.child.kill('SIGTERM'),
  );
  return {
    sid: listed.structuredContent.sessions[0]?.pid as number,
    end: (trigger) =>
      trigger === 'stdin EOF' ? server.child.stdin.end() : server.child.kill(trigger),
    exitedAfter: async (since) => (await server.exited(since)).afterMs,
  };
}

const TRIGGERS = ['stdin EOF', 'SIGTERM', 'SIGHUP'] as const;

describe('shutdown with processes that hop between process groups', { skip }, () => {
  for (const trigger of TRIGGERS) {
    it(`on ${trigger}: nothing of the session is left once the server has exited`, {
      skip:
        TEST_TRANSPORT === 'http' && trigger === 'stdin EOF' && 'stdin does not end an HTTP server',
    }, async () => {
      const server = await startHopping();
      const since = performance.now();
      server.end(trigger);
      const afterMs = await server.exitedAfter(since);
      const left = await survivorsOver(server.sid, 300);
      assert.deepEqual(left, [], `session ${server.sid} still runs ${left}`);
      assert.ok(afterMs < EXIT_BOUND_MS, `exited after ${Math.round(afterMs)} ms`);
    });
  }
});
