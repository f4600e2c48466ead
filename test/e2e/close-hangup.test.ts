/**
 * Close and shutdown hang the terminal up before they kill: a shell's start-up files that take a
 * lock and release it in an EXIT/HUP trap (as pyenv's rehash does) release it whenever the
 * session is closed, at any moment of start-up, or the server is told to stop. A lock left
 * behind makes every later shell that takes it wait. And the private directories of a server
 * killed outright, which it cannot remove, go when the next server starts. npm test runs 10 of
 * the closes and one shutdown; the heavy layer (test/helpers/layers.ts) all 50, and two. The
 * phases of the hang-up are unit-tested on a fake clock: test/unit/pty/terminate.test.ts, and
 * the close's wait for the start-up in test/unit/session/startup-close.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { trials } from '../helpers/layers.js';
import { linuxOnly, sessionPids } from '../helpers/processes.js';
import { EXIT_BOUND_MS, startRawRpcServer } from '../helpers/raw-rpc.js';
import { type Harness, startServer } from '../helpers/server.js';
import { homeEnv, ShellHomes } from '../helpers/shell-homes.js';
import { sleep } from '../helpers/wait.js';

/** Closes at moments of start-up, this many in all, this many sessions at a time. */
const CLOSES = trials(50, 10);
const AT_ONCE = 5;
/**
 * Moments are spread over this long after terminal_start (the start-up takes about 0.8 s): close
 * n comes at a random moment of the n-th of CLOSES equal slices of it, so that few closes cover
 * the whole start-up as many do.
 */
const WINDOW_MS = 1500;
/** Shutdowns, each with AT_ONCE shells inside their start-up. */
const ROUNDS = trials(2, 1);

/**
 * Two start-ups that take a lock named by $LOCK and hold it for 0.2 s, each trap set before its
 * lock is taken. The hold ends well inside the hangup grace (the 750 ms before SIGTERM): a
 * foreground job of the start-up may not see the hangup and run to its end first, and a hold
 * longer than the grace is killed with its lock whatever the terminal does (a hang-up that came while mkdir ran, before the trap, would leave the lock
 * whatever the terminal did). `.taken` marks a start-up that took its lock.
 * - A version manager's, as pyenv's rehash: a script the shell runs takes the lock and releases
 *   it in an EXIT trap; the shell itself has no trap and exits on hangup. A lock left there makes
 *   every later shell wait a minute.
 * - The shell's own: it releases the lock in an EXIT trap and in a HUP trap that exits. (A HUP
 *   trap that carries on would take the lock after a hangup that came before mkdir; on a hung-up
 *   terminal the shell then reads end-of-file and exits, here it is killed: see spec/tools.md, terminal_close.)
 */
const BASHRCS = [
  `bash -c 'trap "rmdir \\"\\$LOCK\\" 2>/dev/null" EXIT
mkdir "$LOCK" || exit 1
: > "$LOCK.taken"
for i in 1 2; do sleep 0.1; done'
`,
  `trap 'rmdir "$LOCK" 2>/dev/null' EXIT
trap 'rmdir "$LOCK" 2>/dev/null; exit 129' HUP
mkdir "$LOCK" || exit 1
: > "$LOCK.taken"
sleep 0.2
`,
];

/** Locks taken, and locks left behind, in `dir`. */
function locks(dir: string): { taken: number; left: string[] } {
  const names = readdirSync(dir);
  return {
    taken: names.filter((n) => n.endsWith('.taken')).length,
    left: names.filter((n) => n.startsWith('lock-') && !n.endsWith('.taken')),
  };
}

describe('close hangs up first', { skip: linuxOnly }, () => {
  const homes = new ShellHomes();
  let shellHomes: string[] = [];
  let lockDir = '';
  before(() => {
    shellHomes = BASHRCS.map((bashrc) => homes.create({ '.bashrc': bashrc }));
    lockDir = mkdtempSync(join(tmpdir(), 'agent-tty-locks-'));
  });
  after(() => {
    homes.removeAll();
    rmSync(lockDir, { recursive: true, force: true });
  });

  const startArgs = (lock: string, n: number) => ({
    shell: '/bin/bash',
    login: false,
    settleMs: 0,
    env: { ...homeEnv(shellHomes[n % shellHomes.length] as string), LOCK: lock },
  });

  it(`terminal_close at ${CLOSES} moments of a shell's start-up leaves no lock taken`, async () => {
    const server: Harness = await startServer();
    const dir = join(lockDir, 'close');
    mkdirSync(dir);
    try {
      const closeOne = async (n: number) => {
        const lock = join(dir, `lock-${n}`);
        const { id } = await server.start(startArgs(lock, n));
        await sleep(((n + Math.random()) / CLOSES) * WINDOW_MS);
        const reply = await server.call('terminal_close', { sessionId: id });
        assert.notEqual(reply.isError, true, JSON.stringify(reply));
      };
      for (let first = 0; first < CLOSES; first += AT_ONCE) {
        const batch = [];
        for (let n = first; n < Math.min(first + AT_ONCE, CLOSES); n++) batch.push(closeOne(n));
        await Promise.all(batch);
      }
      const { taken, left } = locks(dir);
      assert.ok(taken >= CLOSES / 5, `the lock was taken in ${taken} of ${CLOSES} start-ups`);
      assert.deepEqual(left, [], `${left.length} locks left of ${taken} taken`);
    } finally {
      await server.close();
    }
  });

  // A shutdown does not wait for start-ups (the server exits within 1 s), so one that catches a
  // start-up's script in its EXIT trap can leave its lock: spec/tools.md documents it, and on a
  // loaded machine it happens (1 round in the loaded pass). What a shutdown guarantees is checked
  // here: every shell ended, nothing of the sessions left, in time; the locks left are reported.
  it('shutdown during start-ups ends every shell and leaves nothing of them', async (t) => {
    const dir = join(lockDir, 'shutdown');
    mkdirSync(dir);
    for (let round = 0; round < ROUNDS; round++) {
      const tmp = mkdtempSync(join(tmpdir(), 'agent-tty-hangup-'));
      const server = await startRawRpcServer([], { env: { TMPDIR: tmp } });
      try {
        const sids: number[] = [];
        for (let n = 0; n < AT_ONCE; n++) {
          const lock = join(dir, `lock-${round}-${n}`);
          const result = await server.tool('terminal_start', startArgs(lock, n));
          assert.notEqual(result.isError, true, JSON.stringify(result.structuredContent));
        }
        const listed = (await server.tool('terminal_list')) as {
          structuredContent: { sessions: { pid: number }[] };
        };
        sids.push(...listed.structuredContent.sessions.map((s) => s.pid));
        // Every shell is inside its start-up (the lock is taken) before the server is stopped.
        const deadline = performance.now() + 5000;
        while (performance.now() < deadline) {
          const names = readdirSync(dir);
          const mine = names.filter((n) => n.startsWith(`lock-${round}-`) && n.endsWith('.taken'));
          if (mine.length === AT_ONCE) break;
          await sleep(5);
        }
        const since = performance.now();
        server.child.kill('SIGTERM');
        const exit = await server.exited(since);
        assert.ok(exit.afterMs < EXIT_BOUND_MS, `exited after ${Math.round(exit.afterMs)} ms`);
        for (const sid of sids) assert.deepEqual(sessionPids(sid), [], `session ${sid} is empty`);
        assert.deepEqual(
          readdirSync(tmp).filter((n) => /^agent-tty-(shell|history)-/.test(n)),
          [],
          'no private directory is left',
        );
      } finally {
        server.child.kill('SIGKILL');
        rmSync(tmp, { recursive: true, force: true });
      }
    }
    const result = locks(dir);
    assert.equal(result.taken, ROUNDS * AT_ONCE, 'every shell took its lock');
    t.diagnostic(`locks left by the shutdowns: ${result.left.length} of ${result.taken}`);
  });
});

describe('private directories of a server killed outright', { skip: linuxOnly }, () => {
  it('are removed by the next server, and a running server keeps its own', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'agent-tty-orphans-'));
    const privateDirs = () =>
      readdirSync(tmp).filter((n) => /^agent-tty-(shell|history|transcript)-/.test(n));
    const killed = await startRawRpcServer([], { env: { TMPDIR: tmp } });
    const running = await startRawRpcServer([], { env: { TMPDIR: tmp } });
    let next: Awaited<ReturnType<typeof startRawRpcServer>> | undefined;
    const sids: number[] = [];
    try {
      for (const server of [killed, running]) {
        const result = await server.tool('terminal_start', {
          command: 'sleep 600',
          login: false,
          settleMs: 0,
        });
        assert.notEqual(result.isError, true, JSON.stringify(result.structuredContent));
        const listed = (await server.tool('terminal_list')) as {
          structuredContent: { sessions: { pid: number }[] };
        };
        sids.push(...listed.structuredContent.sessions.map((s) => s.pid));
      }
      const before = privateDirs();
      assert.equal(before.length, 4, `a history and a transcript each: ${before}`);
      const since = performance.now();
      killed.child.kill('SIGKILL');
      await killed.exited(since);
      assert.equal(privateDirs().length, 4, 'a server killed outright leaves its directories');
      next = await startRawRpcServer([], { env: { TMPDIR: tmp } });
      // The next server looks once its start-up is done.
      const deadline = performance.now() + 5000;
      while (privateDirs().length > 2 && performance.now() < deadline) await sleep(20);
      assert.equal(privateDirs().length, 2, `the killed server's directories are removed`);
      const kept = privateDirs();
      await sleep(200);
      assert.deepEqual(privateDirs(), kept, 'the running server keeps its own');
      await running.stop();
      assert.deepEqual(privateDirs(), [], 'and removes it as it exits');
    } finally {
      for (const server of [killed, running, next]) server?.child.kill('SIGKILL');
      // The killed server's sleep (hung up with its terminal) is ended here if it is still there.
      for (const sid of sids) for (const pid of sessionPids(sid)) process.kill(pid, 'SIGKILL');
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
