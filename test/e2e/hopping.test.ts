/**
 * Close and shutdown end every process of the terminal's session even when processes keep
 * changing pid and process group without leaving the session (fork, parent exits, child
 * setpgid(0, 0)): nothing with the session's id is left once close returns or the server exits.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FIXTURES } from '../helpers/paths.js';
import { linuxOnly, sessionPids } from '../helpers/processes.js';
import { python, which } from '../helpers/programs.js';
import { EXIT_BOUND_MS, type RawRpcServer, startRawRpcServer } from '../helpers/raw-rpc.js';
import { type Harness, startServer } from '../helpers/server.js';
import { sleep } from '../helpers/wait.js';

const skip = linuxOnly || (which('python3') ? false : 'python3 missing');
/** The interpreter itself, not a version manager's shim that takes a second to start it. */
const PYTHON = skip ? 'python3' : python();
/** Two hoppers that give up by themselves after 10 s, so a failed run leaves nothing for long. */
const HOPPER = `${PYTHON} ${join(FIXTURES, 'hopper.py')} ${process.env.HOPPERS ?? 2} 10`;
const TRIALS = 5;

/** Waits until the session's processes are seen hopping: many distinct pids in it. */
async function waitHopping(sid: number): Promise<void> {
  const seen = new Set<number>();
  const deadline = performance.now() + 10_000;
  while (seen.size < 8 && performance.now() < deadline) {
    for (const pid of sessionPids(sid)) seen.add(pid);
    await sleep(5);
  }
  assert.ok(seen.size >= 8, `session ${sid} hops: ${[...seen]}`);
}

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
      await waitHopping(sid);
      const closed = await h.call('terminal_close', { sessionId: id });
      assert.equal(closed.data.closed, true);
      const left = await survivorsOver(sid, 300);
      assert.deepEqual(left, [], `trial ${trial}: session ${sid} still runs ${left}`);
    }
  });
});

const TRIGGERS: [string, (server: RawRpcServer) => void][] = [
  ['stdin EOF', (s) => s.child.stdin.end()],
  ['SIGTERM', (s) => s.child.kill('SIGTERM')],
  ['SIGHUP', (s) => s.child.kill('SIGHUP')],
];

describe('shutdown with processes that hop between process groups', { skip }, () => {
  for (const [name, trigger] of TRIGGERS) {
    it(`on ${name}: nothing of the session is left once the server has exited`, async () => {
      const server = await startRawRpcServer();
      await server.tool('terminal_start', { command: HOPPER, login: false, settleMs: 300 });
      const listed = (await server.tool('terminal_list')) as {
        structuredContent: { sessions: { pid: number }[] };
      };
      const sid = listed.structuredContent.sessions[0]?.pid as number;
      await waitHopping(sid);
      const since = performance.now();
      trigger(server);
      const exit = await server.exited(since);
      const left = await survivorsOver(sid, 300);
      assert.deepEqual(left, [], `session ${sid} still runs ${left}`);
      assert.ok(exit.afterMs < EXIT_BOUND_MS, `exited after ${Math.round(exit.afterMs)} ms`);
    });
  }
});
