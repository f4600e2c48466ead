/**
 * A close during a shell's start-up lets the start-up finish before it hangs the terminal up, so
 * start-up files that take a lock release it whether or not they trap the hang-up; it does not
 * wait for a start-up that asks for input, nor more than 3 s for one that hangs, nor at all when
 * the server shuts down. Input the agent sent meanwhile never reaches the shell. How long each
 * wait lasts is unit-tested on a fake clock (test/unit/session/startup-close.test.ts); here the
 * times are bounds a loaded machine is far inside, or what the server reports. The cases run side
 * by side, each on a shell of its own.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { linuxOnly } from '../helpers/processes.js';
import { EXIT_BOUND_MS, startRawRpcServer } from '../helpers/raw-rpc.js';
import { type Harness, startServer } from '../helpers/server.js';
import { homeEnv, ShellHomes } from '../helpers/shell-homes.js';
import { sleep } from '../helpers/wait.js';

/** Mirrors session/startup-close.ts. */
const STARTUP_CLOSE_WAIT_MS = 3000;

/** A start-up that takes a lock for 0.4 s and releases it with no trap at all. */
const PLAIN_LOCK = `mkdir "$LOCK" || exit 1
: > "$LOCK.taken"
sleep 0.4
rmdir "$LOCK"
`;

describe('close during a shell start-up', { skip: linuxOnly, concurrency: true }, () => {
  const homes = new ShellHomes();
  let h: Harness;
  let dir = '';
  const home = (bashrc: string) => homeEnv(homes.create({ '.bashrc': bashrc }));
  before(async () => {
    h = await startServer();
    dir = mkdtempSync(join(tmpdir(), 'agent-tty-startup-close-'));
  });
  after(async () => {
    await h.close();
    homes.removeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts bash with `env`, returns its id without waiting for its prompt. */
  const startShell = async (env: Record<string, string>) =>
    (await h.start({ shell: '/bin/bash', login: false, settleMs: 0, env })).id;

  const timedClose = async (id: string) => {
    const began = performance.now();
    const reply = await h.call('terminal_close', { sessionId: id });
    assert.notEqual(reply.isError, true, JSON.stringify(reply));
    return performance.now() - began;
  };

  it('lets start-up files finish, so a lock they release without any trap is released', async (t) => {
    const locks = join(dir, 'plain');
    mkdirSync(locks);
    const env = home(PLAIN_LOCK);
    const took = await Promise.all(
      Array.from({ length: 5 }, async (_, n) => {
        const id = await startShell({ ...env, LOCK: join(locks, `lock-${n}`) });
        await sleep(n * 60);
        return timedClose(id);
      }),
    );
    const names = readdirSync(locks);
    assert.equal(names.filter((n) => n.endsWith('.taken')).length, 5, `taken: ${names}`);
    assert.deepEqual(
      names.filter((n) => !n.endsWith('.taken')),
      [],
      'no lock is left',
    );
    // That the close goes on as soon as the shell is at its prompt, not at the 3 s bound:
    // test/unit/session/startup-close.test.ts (a fake clock).
    t.diagnostic(`closed in ${took.map((ms) => Math.round(ms)).join(', ')} ms`);
  });

  it('does not wait for a start-up that asks for input', async () => {
    const id = await startShell(home('read -r -p "passphrase? " answer\n'));
    await h.waitFor(id, (s) => s.screen.some((row) => row.startsWith('passphrase?')));
    const ms = await timedClose(id);
    // Not waiting is closing before the bound a wait would last (a close takes tens of ms).
    assert.ok(ms < STARTUP_CLOSE_WAIT_MS, `closed in ${Math.round(ms)} ms`);
  });

  it(`waits at most ${STARTUP_CLOSE_WAIT_MS / 1000} s for a start-up that hangs`, async () => {
    const id = await startShell(home('sleep 30\n'));
    const ms = await timedClose(id);
    // It waited for the start-up, and then did not hang; that it stops at 3 s exactly, and never
    // past the start-up window: test/unit/session/startup-close.test.ts.
    assert.ok(
      ms >= STARTUP_CLOSE_WAIT_MS - 300 && ms < 10 * STARTUP_CLOSE_WAIT_MS,
      `closed in ${Math.round(ms)} ms`,
    );
  });

  it('sends nothing the agent typed during the start-up, though the start-up finishes', async () => {
    const file = join(dir, 'typed');
    const id = await startShell(home('sleep 0.4\n'));
    // Held until the shell is ready; the close, sent after it on the same connection, cancels it.
    const typed = h.input(id, [{ type: 'text', text: `touch '${file}'\r` }], { settleMs: 0 });
    await timedClose(id);
    const reply = await typed;
    assert.equal(reply.isError, true, reply.text);
    assert.match(reply.text, /SESSION_CLOSED/);
    // The close returns once every process of the session has gone: nothing can run it later.
    assert.equal(existsSync(file), false, 'the typed command did not run');
  });

  it('does not hold up a shutdown: SIGTERM ends a close that waits for a start-up', async () => {
    const server = await startRawRpcServer([]);
    try {
      const started = (await server.tool('terminal_start', {
        shell: '/bin/bash',
        login: false,
        settleMs: 0,
        env: home('sleep 30\n'),
      })) as { structuredContent: { sessionId: string } };
      const closing = server.tool('terminal_close', {
        sessionId: started.structuredContent.sessionId,
      });
      closing.catch(() => undefined);
      // The close has begun (it waits for the start-up) once the session has left the list.
      const listed = async () =>
        ((await server.tool('terminal_list')) as { structuredContent: { sessions: unknown[] } })
          .structuredContent.sessions.length;
      const deadline = Date.now() + 10_000;
      while ((await listed()) > 0) {
        assert.ok(Date.now() < deadline, 'the close has not begun after 10 s');
        await sleep(10);
      }
      const since = performance.now();
      server.child.kill('SIGTERM');
      const exit = await server.exited(since);
      // At once (about 50 ms here). A close left waiting would hold the shutdown to its own
      // deadline, where the server kills what is left without a hang-up and says so.
      assert.doesNotMatch(server.stderr(), /did not close in time/);
      assert.ok(exit.afterMs < EXIT_BOUND_MS, `exited after ${Math.round(exit.afterMs)} ms`);
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});
