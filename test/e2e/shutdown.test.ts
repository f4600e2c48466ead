/**
 * Shutdown leaves nothing behind: stdin EOF, a broken stdout pipe and every signal that ends a
 * process by default and can be caught (SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, … as spec/guarantees.md,
 * Guarantee 3, lists them) each close every session (processes that ignore hangup included),
 * remove the sessions' private directories (transcript files included) and the attach socket, and end the server within
 * 1 s. SIGPIPE and SIGXFSZ, which Node ignores, leave it running.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { HEAVY, heavyOnly } from '../helpers/layers.js';
import { isAlive, linuxOnly, sessionPids } from '../helpers/processes.js';
import { EXIT_BOUND_MS, type RawRpcServer, startRawRpcServer } from '../helpers/raw-rpc.js';
import { settledWithin, sleep, waitUntil } from '../helpers/wait.js';

/** The signals spec/guarantees.md (Guarantee 3) says run the shutdown, on Linux. */
const SHUTDOWN_SIGNALS: readonly NodeJS.Signals[] = [
  'SIGINT',
  'SIGTERM',
  'SIGHUP',
  'SIGQUIT',
  'SIGUSR1',
  'SIGUSR2',
  'SIGALRM',
  'SIGVTALRM',
  'SIGPROF',
  'SIGXCPU',
  'SIGSYS',
  'SIGABRT',
  'SIGPWR',
  'SIGSTKFLT',
  'SIGIO',
];

interface Started {
  readonly server: RawRpcServer;
  /** The server's temporary directory: its sessions' private directories and its socket's. */
  readonly tmp: string;
  /** Session ids (leader pids) of its sessions. */
  readonly sids: number[];
  /** The sessions' leaders and the child that ignores hangup. */
  readonly pids: number[];
}

/**
 * A server in a temporary directory of its own, with an interactive bash (its start-up files
 * and history in private directories), a sleep and a child that ignores hangup, and its attach
 * socket listening.
 */
async function startWithSessions(): Promise<Started> {
  const tmp = mkdtempSync(join(tmpdir(), 'agent-tty-shutdown-'));
  let server: RawRpcServer;
  try {
    server = await startRawRpcServer([], { env: { TMPDIR: tmp } });
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  try {
    return await startSessions(server, tmp);
  } catch (err) {
    // A failed start-up leaves neither the server nor its sessions behind.
    await end({ server, tmp, sids: [], pids: [] });
    throw err;
  }
}

/**
 * Ends `started`'s server as a client does (stdin EOF), killing it if it does not exit, and
 * removes its directory.
 */
async function end(started: Started): Promise<void> {
  const { server } = started;
  if (server.isRunning()) {
    server.child.stdin.end();
    await settledWithin(server.exited(performance.now()), 3 * EXIT_BOUND_MS);
  }
  server.child.kill('SIGKILL');
  rmSync(started.tmp, { recursive: true, force: true });
}

async function startSessions(server: RawRpcServer, tmp: string): Promise<Started> {
  const pids: number[] = [];
  const starts = [
    { shell: '/bin/bash', login: false },
    // Prints nothing: read at once, not after the start-up window a silent program waits out.
    { command: 'sleep 600', login: false, settleMs: 0 },
    { command: `trap '' HUP INT TERM; sleep 601 & echo $!; wait`, login: false },
  ];
  // Started side by side: the server runs requests concurrently, and the sessions are unrelated.
  await Promise.all(
    starts.map(async (args) => {
      const result = await server.tool('terminal_start', { settleMs: 300, ...args });
      assert.notEqual(result.isError, true, JSON.stringify(result.structuredContent));
      const screen = (result.structuredContent as { snapshot: { screen: string[] } }).snapshot
        .screen;
      if ('command' in args && args.command.includes('echo $!')) pids.push(Number(screen[0]));
    }),
  );
  const listed = (await server.tool('terminal_list')) as {
    structuredContent: { sessions: { pid: number }[] };
  };
  const sids = listed.structuredContent.sessions.map((s) => s.pid);
  pids.push(...sids);
  await waitUntil(() => sockets(tmp).length === 1, 'the attach socket listens');
  return { server, tmp, sids, pids: [...new Set(pids)].filter((p) => p > 0) };
}

/** The sessions' private directories left in `tmp`. */
function privateDirs(tmp: string): string[] {
  return readdirSync(tmp).filter((name) => /^agent-tty-(shell|history|transcript)-/.test(name));
}

/** Attach sockets left in `tmp`'s socket directory. */
function sockets(tmp: string): string[] {
  const dir = join(tmp, `agent-tty-${process.getuid?.() ?? 0}`);
  try {
    return readdirSync(dir).filter((name) => name.endsWith('.sock'));
  } catch {
    return [];
  }
}

async function assertNothingLeft(started: Started): Promise<void> {
  await sleep(50);
  for (const pid of started.pids) assert.equal(isAlive(pid), false, `pid ${pid} is gone`);
  for (const sid of started.sids) assert.deepEqual(sessionPids(sid), [], `session ${sid} is empty`);
  assert.deepEqual(privateDirs(started.tmp), [], 'no private directory is left');
  assert.deepEqual(sockets(started.tmp), [], 'no attach socket is left');
}

/**
 * npm test tries the ways out that differ in the server: stdin EOF, a broken pipe, and one
 * signal (SIGTERM, a service manager's). Every signal of the list runs the same handler
 * (src/serve.ts registers shutdown for each of shutdownSignals()), and which signals are in the
 * list is test/unit/signals.test.ts > 'on Linux: every signal that ends a process and can be
 * caught safely, each once'; SIGUSR1's shutdown is also inspector-signal.test.ts's. The heavy
 * layer (`node scripts/run-tests.mjs heavy`) tries every signal here.
 */
const TRIED: readonly NodeJS.Signals[] = HEAVY ? SHUTDOWN_SIGNALS : ['SIGTERM'];

const TRIGGERS: [string, (server: RawRpcServer) => void][] = [
  ['stdin EOF', (s) => s.child.stdin.end()],
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
  ...TRIED.map((signal): [string, (server: RawRpcServer) => void] => [
    signal,
    (s) => s.child.kill(signal),
  ]),
];

describe('shutdown', { skip: linuxOnly }, () => {
  for (const [name, trigger] of TRIGGERS) {
    it(`on ${name}: closes every session, removes its files and exits within 1 s`, async () => {
      const started = await startWithSessions();
      try {
        assert.equal(started.pids.length, 4, `sessions started: ${started.pids}`);
        for (const pid of started.pids) assert.equal(isAlive(pid), true);
        // Three histories; the shell's start-up files go at its first prompt.
        assert.equal(
          privateDirs(started.tmp).filter((d) => d.startsWith('agent-tty-history-')).length,
          3,
          'three histories',
        );
        assert.equal(
          privateDirs(started.tmp).filter((d) => d.startsWith('agent-tty-transcript-')).length,
          3,
          'three transcripts',
        );
        const since = performance.now();
        trigger(started.server);
        const exit = await settledWithin(started.server.exited(since), 3 * EXIT_BOUND_MS);
        assert.ok(exit, `exited within ${3 * EXIT_BOUND_MS} ms`);
        assert.ok(exit.afterMs < EXIT_BOUND_MS, `exited after ${Math.round(exit.afterMs)} ms`);
        assert.deepEqual(
          exit,
          { code: 0, signal: null, afterMs: exit.afterMs },
          'exited by itself',
        );
        await assertNothingLeft(started);
      } finally {
        await end(started);
      }
    });
  }

  // SIGXFSZ in the heavy layer: that the server takes neither is test/unit/signals.test.ts >
  // 'never takes a signal Node ignores, a fault, or one that cannot be caught'.
  for (const [signal, skip] of [
    ['SIGPIPE', false],
    ['SIGXFSZ', heavyOnly],
  ] as const) {
    it(`on ${signal}: keeps running, sessions and all (Node ignores it)`, { skip }, async () => {
      const started = await startWithSessions();
      try {
        started.server.child.kill(signal);
        await sleep(300);
        assert.equal(started.server.isRunning(), true);
        const listed = (await started.server.tool('terminal_list')) as {
          structuredContent: { sessions: unknown[] };
        };
        assert.equal(listed.structuredContent.sessions.length, 3);
        for (const pid of started.pids) assert.equal(isAlive(pid), true);
        await started.server.stop();
        await assertNothingLeft(started);
      } finally {
        await end(started);
      }
    });
  }
});
