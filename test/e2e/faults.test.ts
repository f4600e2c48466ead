/**
 * Faults, each with its defined outcome: a program killed by a signal, a program that
 * closes its terminal but keeps running, spawn failures (no session, and none of the private
 * directories made for it, is left), the client vanishing mid-wait, a request
 * cancelled mid-batch, a second close, and a close during a running batch. A broken stdout pipe is
 * shutdown.test.ts's. Contract: spec/tools.md (terminal_start, terminal_input, terminal_close),
 * spec/guarantees.md (Guarantees) and spec/errors.md. The faults over the SDK client and those on
 * a raw connection run side by side, on servers of their own. A program letting go of its
 * terminal is sh in npm test; the heavy layer (test/helpers/layers.ts) adds python closing its
 * descriptors, the same outcome by another way.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { heavyOnly } from '../helpers/layers.js';
import { isAlive, linuxOnly, sessionPids, waitGone } from '../helpers/processes.js';
import { python, which } from '../helpers/programs.js';
import {
  EXIT_BOUND_MS,
  type RawRpcServer,
  startRawRpcServer,
  type ToolResult,
} from '../helpers/raw-rpc.js';
import { type Harness, startServer } from '../helpers/server.js';
import { type Snapshot, screenText } from '../helpers/tool-calls.js';
import { sleep } from '../helpers/wait.js';

const SH = { shell: '/bin/sh', login: false };

/** The terminal_list entry of `id`. */
async function listed(h: Harness, id: string) {
  const reply = await h.call('terminal_list');
  const entry = reply.data.sessions?.find((s) => s.sessionId === id);
  assert.ok(entry, `${id} is listed`);
  return entry;
}

// Side by side: the two groups have servers of their own, and mostly wait.
describe('faults, through a client and on a raw connection', { concurrency: true }, () => {
  describe('faults', { concurrency: 1 }, () => {
    let h: Harness;
    let dir: string;
    /** The server's temporary directory, where sessions' private directories go. */
    let tmp: string;
    /** The sessions' private directories (shell history, shell start-up files) there now. */
    const privateDirs = () => readdirSync(tmp).filter((n) => /^agent-tty-(history|shell)-/.test(n));
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'agent-tty-faults-'));
      tmp = join(dir, 'tmp');
      mkdirSync(tmp);
      h = await startServer({ env: { TMPDIR: tmp } });
    });
    after(async () => {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const SIGNALS: [name: string, command: string, kill?: NodeJS.Signals][] = [
      ['SIGKILL', 'sleep 30', 'SIGKILL'],
      ['SIGTERM', 'sleep 30', 'SIGTERM'],
      ['SIGUSR1', 'echo about to go; kill -USR1 $$; sleep 30'],
    ];
    for (const [signal, command, kill] of SIGNALS) {
      it(`reports a program killed by ${signal} in the snapshot and terminal_list`, async () => {
        // sleep prints nothing, so it never becomes ready: start it without waiting for that.
        const { id } = await h.start({ command, ...SH, settleMs: 0 });
        await sleep(100);
        const { pid } = await listed(h, id);
        if (kill) process.kill(pid, kill);
        const snap = await h.waitFor(id, (s) => s.status === 'exited', 5000);
        assert.equal(snap.signal, signal);
        assert.equal(snap.exitCode, undefined);
        const entry = await listed(h, id);
        assert.equal(entry.status, 'exited');
        assert.equal(entry.signal, signal);
        assert.equal(entry.exitCode, undefined);
        const input = await h.input(id, [{ type: 'text', text: 'x' }]);
        assert.equal(input.data.error?.code, 'SESSION_EXITED');
        assert.equal(input.data.error?.details.signal, signal);
        assert.equal((await h.call('terminal_close', { sessionId: id })).data.closed, true);
      });
    }

    // The interpreter itself, not a version manager's shim: a shim's short-lived helpers would be
    // counted among the session's processes and be gone a moment later.
    const DETACHED: [name: string, command: () => string, needs?: string, heavy?: boolean][] = [
      ['sh redirecting 0-2 to /dev/null', () => 'exec >/dev/null 2>&1 </dev/null; sleep 30'],
      [
        'python closing fds 0-2',
        () =>
          `${python()} -c 'import os, time; [os.close(fd) for fd in (0, 1, 2)]; time.sleep(30)'`,
        'python3',
        true,
      ],
    ];
    for (const [name, command, needs, heavy] of DETACHED) {
      it(`keeps a program that lets go of its terminal (${name}) running until close kills it`, {
        skip:
          linuxOnly ||
          (heavy ? heavyOnly : false) ||
          (needs && !which(needs) ? `${needs} is not installed` : false),
      }, async () => {
        const { id } = await h.start({ command: command(), ...SH, settleMs: 0 });
        // Long after it let go of the terminal, it is still the running program of the session.
        await sleep(700);
        const snap = await h.snapshot(id, { settleMs: 0 });
        assert.equal(snap.status, 'running');
        const { pid, status } = await listed(h, id);
        assert.equal(status, 'running');
        const pids = sessionPids(pid);
        assert.ok(pids.length >= 1 && pids.every(isAlive), `its processes run: ${pids}`);
        const closed = await h.call('terminal_close', { sessionId: id });
        assert.equal(closed.data.closed, true);
        for (const p of pids) assert.equal(isAlive(p), false, `pid ${p} is gone after close`);
        assert.deepEqual(sessionPids(pid), []);
      });
    }

    it('reports the exit of a program that let go of its terminal once it exits', async () => {
      const { id } = await h.start({
        command: 'exec >/dev/null 2>&1 </dev/null; sleep 1; exit 3',
        ...SH,
        settleMs: 0,
      });
      assert.equal((await h.snapshot(id, { settleMs: 0 })).status, 'running');
      const snap = await h.waitFor(id, (s) => s.status === 'exited', 5000);
      assert.equal(snap.exitCode, 3);
      await h.call('terminal_close', { sessionId: id });
    });

    const SPAWN_FAILURES: [name: string, args: () => Record<string, unknown>][] = [
      ['a missing cwd', () => ({ command: 'true', cwd: join(dir, 'missing') })],
      ['a relative missing cwd', () => ({ command: 'true', cwd: 'no/such/dir/here' })],
      ['a cwd that is a file', () => ({ command: 'true', cwd: join(dir, 'file') })],
      ['a missing shell', () => ({ command: 'true', shell: join(dir, 'no-shell') })],
      ['a shell not on PATH', () => ({ command: 'true', shell: 'no-such-shell-agent-tty' })],
      ['a shell that is not executable', () => ({ command: 'true', shell: join(dir, 'file') })],
      ['a shell that is a directory', () => ({ command: 'true', shell: dir })],
      // An interactive shell gets its history and start-up files before it is spawned.
      [
        'an interactive shell in a missing cwd',
        () => ({ shell: 'bash', cwd: join(dir, 'missing') }),
      ],
      // Linux's limit on one argument or environment entry (128 KiB with 4 KiB pages).
      ...(process.platform === 'linux'
        ? ([
            ['a command too long to exec', () => ({ command: `: ${'x'.repeat(600_000)}` })],
            [
              'an environment value too long to exec',
              () => ({ command: 'true', env: { BIG: 'x'.repeat(600_000) } }),
            ],
          ] as [string, () => Record<string, unknown>][])
        : []),
    ];
    for (const [name, args] of SPAWN_FAILURES) {
      it(`fails with SPAWN_FAILED and leaves no session or private file for ${name}`, async () => {
        writeFileSync(join(dir, 'file'), 'not a directory, not executable\n');
        const before = (await h.call('terminal_list')).data.sessions ?? [];
        const dirsBefore = privateDirs();
        const reply = await h.call('terminal_start', { login: false, ...args() });
        assert.equal(reply.data.error?.code, 'SPAWN_FAILED', reply.text);
        assert.equal(reply.data.sessionId, undefined);
        assert.equal(reply.data.snapshot, undefined);
        const after = (await h.call('terminal_list')).data.sessions ?? [];
        assert.deepEqual(after, before, 'no session was added');
        assert.deepEqual(
          privateDirs().filter((d) => !dirsBefore.includes(d)),
          [],
          'no private directory was left',
        );
        const ok = await h.start({ command: 'true', ...SH });
        assert.equal((await h.call('terminal_close', { sessionId: ok.id })).data.closed, true);
      });
    }

    it('returns closed:false for a second close, and for a close racing the first', async () => {
      const { id } = await h.start({ command: 'sleep 30', ...SH, settleMs: 0 });
      assert.equal((await h.call('terminal_close', { sessionId: id })).data.closed, true);
      assert.equal((await h.call('terminal_close', { sessionId: id })).data.closed, false);
      const other = await h.start({ command: `trap '' HUP TERM; sleep 30`, ...SH, settleMs: 0 });
      await sleep(300);
      const { pid } = await listed(h, other.id);
      const both = await Promise.all([
        h.call('terminal_close', { sessionId: other.id }),
        h.call('terminal_close', { sessionId: other.id }),
      ]);
      assert.deepEqual(both.map((r) => r.data.closed).sort(), [false, true]);
      assert.deepEqual(await waitGone(sessionPids(pid).concat(pid)), []);
    });

    it('answers a close racing the first only once the processes are gone', {
      skip: linuxOnly,
    }, async () => {
      const { id } = await h.start({ command: `trap '' HUP TERM; sleep 30`, ...SH, settleMs: 0 });
      await sleep(300);
      const { pid } = await listed(h, id);
      const pids = sessionPids(pid);
      const first = h.call('terminal_close', { sessionId: id });
      const racing = await h.call('terminal_close', { sessionId: id });
      const aliveAtReply = pids.filter(isAlive);
      await first;
      assert.equal(racing.data.closed, false);
      assert.deepEqual(aliveAtReply, [], 'nothing of the session runs when terminal_close returns');
    });

    it('fails a running batch, a queued batch and a waiting snapshot cleanly on close', async () => {
      const { id } = await h.start({ command: 'cat', ...SH, cols: 40, rows: 5, settleMs: 100 });
      const { pid } = await listed(h, id);
      const pids = sessionPids(pid);
      const running = h.input(id, [
        { type: 'text', text: 'a' },
        { type: 'wait', durationMs: 5000 },
        { type: 'text', text: 'b' },
      ]);
      await sleep(200);
      const queued = h.input(id, [{ type: 'text', text: 'c' }]);
      const snapshot = h.call('terminal_snapshot', { sessionId: id, settleMs: 5000 });
      await sleep(200);
      const closed = await h.call('terminal_close', { sessionId: id });
      assert.equal(closed.data.closed, true);
      for (const p of pids) assert.equal(isAlive(p), false, `pid ${p} is gone`);
      const [first, second, observed] = await Promise.all([running, queued, snapshot]);
      assert.equal(first.data.error?.code, 'SESSION_CLOSED', first.text);
      assert.equal(first.data.actionsCompleted, 1, 'the text before the wait was sent');
      assert.equal(first.data.inputSent, true);
      assert.equal(first.data.failedActionIndex, 1);
      assert.equal(second.data.error?.code, 'SESSION_CLOSED', second.text);
      assert.equal(second.data.inputSent, false);
      assert.equal(observed.data.error?.code, 'SESSION_CLOSED', observed.text);
      const list = await h.call('terminal_list');
      assert.equal(list.isError, false);
      assert.equal(isAlive(h.pid), true, 'the server runs on');
    });
  });

  /** Starts `command` over a raw connection; returns its id and first screen. */
  async function startOn(server: RawRpcServer, command: string) {
    const result = await server.tool('terminal_start', { command, ...SH, settleMs: 300 });
    assert.equal(result.isError, undefined, JSON.stringify(result));
    const { sessionId, snapshot } = result.structuredContent as {
      sessionId: string;
      snapshot: Snapshot;
    };
    return { id: sessionId, screen: snapshot.screen };
  }

  // Each test on sessions of its own, side by side: they wait out their batches' waits.
  describe('faults on a raw connection', { skip: linuxOnly, concurrency: true }, () => {
    let server: RawRpcServer;
    before(async () => {
      server = await startRawRpcServer();
    });
    after(async () => {
      await server.stop();
    });

    const start = (command: string) => startOn(server, command);
    const input = (sessionId: string, actions: Record<string, unknown>[]) =>
      server.send('tools/call', { name: 'terminal_input', arguments: { sessionId, actions } });
    const screen = async (sessionId: string): Promise<string> => {
      const result = await server.tool('terminal_snapshot', { sessionId, settleMs: 100 });
      return screenText(result.structuredContent?.snapshot as Snapshot);
    };

    it('stops a cancelled batch before its next action; the session stays usable', async () => {
      const { id } = await start('cat');
      const cancelled = input(id, [
        { type: 'text', text: 'first' },
        { type: 'wait', durationMs: 1500 },
        { type: 'text', text: 'second' },
      ]);
      await sleep(300);
      server.notify('notifications/cancelled', { requestId: cancelled.id, reason: 'test' });
      // Queued behind the cancelled batch: it runs once the cancelled wait is released.
      const next = await input(id, [{ type: 'text', text: '+more' }]).reply;
      const nextResult = next.result as ToolResult;
      assert.equal(nextResult.isError, undefined, JSON.stringify(next));
      assert.equal(nextResult.structuredContent?.actionsCompleted, 1);
      await sleep(1500);
      assert.equal(await screen(id), 'first+more', 'the rest of the cancelled batch never ran');
      assert.ok(server.unanswered().includes(cancelled.id), 'a cancelled request gets no reply');
      await server.tool('terminal_close', { sessionId: id });
    });

    it('never runs a queued batch whose request was cancelled', async () => {
      const { id } = await start('cat');
      const head = input(id, [{ type: 'wait', durationMs: 1500 }]);
      const doomed = input(id, [{ type: 'text', text: 'DOOMED' }]);
      await sleep(100);
      server.notify('notifications/cancelled', { requestId: doomed.id, reason: 'test' });
      const headReply = await head.reply;
      assert.equal((headReply.result as ToolResult).isError, undefined);
      const after = await input(id, [{ type: 'text', text: 'after' }]).reply;
      assert.equal((after.result as ToolResult).isError, undefined);
      assert.equal(await screen(id), 'after');
      assert.ok(server.unanswered().includes(doomed.id), 'a cancelled request gets no reply');
      await server.tool('terminal_close', { sessionId: id });
    });

    it('exits within 1 s with nothing left when the client vanishes mid-wait', async () => {
      const vanishing = await startRawRpcServer();
      const command = `trap '' HUP INT TERM; sleep 601 & echo $!; wait`;
      const { id, screen: first } = await startOn(vanishing, command);
      const list = await vanishing.tool('terminal_list', {});
      const sessions = (list.structuredContent?.sessions ?? []) as { pid: number }[];
      const leader = sessions[0]?.pid as number;
      const child = Number(first[0]);
      assert.ok(child > 0 && isAlive(child), `the background child runs: ${first[0]}`);
      const pids = sessionPids(leader);
      assert.ok(pids.includes(child) && pids.includes(leader), `${pids}`);
      const waiting = vanishing.send('tools/call', {
        name: 'terminal_snapshot',
        arguments: { sessionId: id, settleMs: 30_000 },
      });
      await sleep(200);
      assert.ok(vanishing.unanswered().includes(waiting.id), 'the snapshot is still waiting');
      const since = performance.now();
      vanishing.child.stdin.end();
      const exit = await vanishing.exited(since);
      assert.ok(exit.afterMs < EXIT_BOUND_MS, `exited after ${Math.round(exit.afterMs)} ms`);
      assert.equal(exit.signal, null, 'exited by itself');
      await waiting.reply.catch(() => undefined);
      assert.deepEqual(await waitGone(pids, 500), [], 'every process of the session is gone');
    });
  });
});
