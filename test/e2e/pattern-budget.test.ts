/**
 * An agent's regular expression cannot freeze the server: a pattern that backtracks
 * catastrophically ((a+)+$ over a row of 40 a's and a '!') runs off the main thread under a time
 * budget, so terminal_list, cancellation and shutdown keep answering, and the call itself ends
 * with PATTERN_TIMEOUT instead of never.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { cpuTicks, linuxOnly, rssKiB } from '../helpers/processes.js';
import {
  EXIT_BOUND_MS,
  type RawRpcServer,
  startRawRpcServer,
  type ToolResult,
} from '../helpers/raw-rpc.js';
import { settledWithin, sleep } from '../helpers/wait.js';

const EVIL = '(a+)+$';
const ROW = `${'a'.repeat(40)}!`;
/**
 * terminal_list must answer this fast while a pathological pattern is being evaluated. A main
 * thread held by the pattern would answer only once the 1 s budget ends it; the rest is room for
 * a loaded machine (a list round trip takes a few ms idle, up to about 190 ms on a busy 2-core VM).
 */
const LIST_BOUND_MS = 600;
/** After a cancel, the session's queue must be free: a snapshot kept behind the wait takes 10 s. */
const AFTER_CANCEL_BOUND_MS = 2000;
/**
 * The pathological call must end this soon: "it did not hang", ten times the 1 s budget and a
 * worker's start. Left to run, the pattern would take far longer (2^40 steps); a wait left to its
 * own timeout ends with another code than PATTERN_TIMEOUT.
 */
const CALL_BOUND_MS = 15_000;

/** Resolves with the result and how long it took, or with undefined after `boundMs`. */
async function timed(
  promise: Promise<ToolResult>,
  boundMs: number,
): Promise<{ result: ToolResult; ms: number } | undefined> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), boundMs);
  });
  const answer = promise.then((result) => ({ result, ms: performance.now() - started }));
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** /proc/PID/status of `pid`. */
function procStatus(pid: number): string {
  return readFileSync(`/proc/${pid}/status`, 'utf8');
}

function call(server: RawRpcServer, name: string, args: Record<string, unknown>) {
  return server.tool(name, args);
}

async function startRowSession(server: RawRpcServer): Promise<string> {
  const started = (await call(server, 'terminal_start', {
    command: `printf '%s\\n' '${ROW}'; exec sleep 600`,
    login: false,
    settleMs: 200,
  })) as { structuredContent: { sessionId: string; snapshot: { screen: string[] } } };
  const { sessionId, snapshot } = started.structuredContent;
  assert.ok(
    snapshot.screen.some((line) => line.includes(ROW)),
    `the row is on the screen: ${snapshot.screen.join('|')}`,
  );
  return sessionId;
}

/** A pathological call in flight, then terminal_list 30 ms later: list fast, call bounded. */
async function assertDoesNotStall(
  server: RawRpcServer,
  pathological: Promise<ToolResult>,
): Promise<void> {
  const pending = timed(pathological, CALL_BOUND_MS);
  await sleep(30);
  const list = await timed(call(server, 'terminal_list', {}), LIST_BOUND_MS);
  assert.ok(list, `terminal_list answered within ${LIST_BOUND_MS} ms`);
  assert.equal(list.result.isError, undefined);
  const ended = await pending;
  assert.ok(ended, `the call ended within ${CALL_BOUND_MS} ms`);
  assert.equal(ended.result.isError, true);
  assert.equal(ended.result.structuredContent?.error?.code, 'PATTERN_TIMEOUT');
}

describe('a catastrophically backtracking pattern', () => {
  let server: RawRpcServer;
  let sessionId: string;
  before(async () => {
    server = await startRawRpcServer();
    sessionId = await startRowSession(server);
  });
  // Ended as a client ends it, so the session's private directory goes too (SIGKILL leaves it).
  after(() => server.stop());

  it('in a terminal_snapshot find does not stall terminal_list and ends with PATTERN_TIMEOUT', async () => {
    await assertDoesNotStall(
      server,
      call(server, 'terminal_snapshot', { sessionId, settleMs: 0, find: { pattern: EVIL } }),
    );
  });

  it('in a wait action does not stall terminal_list and ends with PATTERN_TIMEOUT', async () => {
    await assertDoesNotStall(
      server,
      call(server, 'terminal_input', {
        sessionId,
        actions: [{ type: 'wait', pattern: EVIL, timeoutMs: 2 * CALL_BOUND_MS }],
      }),
    );
  });

  it('in a cancelled wait leaves the session usable at once', async () => {
    const { id } = server.send('tools/call', {
      name: 'terminal_input',
      arguments: { sessionId, actions: [{ type: 'wait', pattern: EVIL, timeoutMs: 10_000 }] },
    });
    await sleep(50);
    server.notify('notifications/cancelled', { requestId: id, reason: 'test' });
    // The session's queue is free again: a snapshot waits behind nothing.
    const snapshot = await timed(
      call(server, 'terminal_snapshot', { sessionId, settleMs: 0 }),
      AFTER_CANCEL_BOUND_MS,
    );
    assert.ok(snapshot, `terminal_snapshot answered within ${AFTER_CANCEL_BOUND_MS} ms`);
    assert.equal(snapshot.result.isError, undefined);
  });

  it('leaves no worker running after 150 cancelled searches, and answers as quickly as before', {
    skip: linuxOnly,
  }, async (t) => {
    const threads = () => Number(/Threads:\s+(\d+)/.exec(procStatus(server.pid))?.[1]);
    // The idle pool is what an ordinary search leaves: the worker it used and a spare.
    await call(server, 'terminal_snapshot', { sessionId, settleMs: 0, find: { pattern: 'a!' } });
    await sleep(300);
    const idle = { threads: threads(), rssKiB: rssKiB(server.pid) as number };
    let peak = idle.threads;
    let absorbedMs = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, threads());
    }, 5);
    try {
      // Ten rounds of 15 (the transport runs 16 requests at once): each search is running or
      // waiting for a worker when it is cancelled.
      for (let round = 0; round < 10; round++) {
        const ids = Array.from(
          { length: 15 },
          () =>
            server.send('tools/call', {
              name: 'terminal_snapshot',
              arguments: { sessionId, settleMs: 0, find: { pattern: EVIL } },
            }).id,
        );
        await sleep(20);
        for (const requestId of ids) {
          server.notify('notifications/cancelled', { requestId, reason: 'test' });
        }
      }
      // Once the server has read it all (a ping answered behind it), every cancelled search's
      // worker is stopped: the threads go back to the idle pool's.
      const stormEnd = performance.now();
      await server.request('ping');
      const deadline = Date.now() + 20_000;
      while (threads() > idle.threads && Date.now() < deadline) await sleep(50);
      absorbedMs = performance.now() - stormEnd;
      const list = await timed(call(server, 'terminal_list', {}), LIST_BOUND_MS);
      assert.ok(list, `terminal_list answered within ${LIST_BOUND_MS} ms`);
      const found = await timed(
        call(server, 'terminal_snapshot', { sessionId, settleMs: 0, find: { pattern: 'a!$' } }),
        CALL_BOUND_MS,
      );
      assert.ok(found, `a search answered within ${CALL_BOUND_MS} ms`);
      assert.equal(found.result.isError, undefined, JSON.stringify(found.result));
    } finally {
      clearInterval(sampler);
    }
    const cpu = cpuTicks(server.pid);
    await sleep(1000);
    const busy = cpuTicks(server.pid) - cpu;
    const rss = rssKiB(server.pid) as number;
    t.diagnostic(
      `threads ${idle.threads} idle, ${peak} at most, back ${absorbedMs.toFixed(0)} ms after the last cancel; RSS ${idle.rssKiB} -> ${rss} KiB; ${busy} ticks of CPU in the second after`,
    );
    assert.ok(threads() <= idle.threads, `${threads()} threads, ${idle.threads} before`);
    assert.ok(busy <= 20, `the server used ${busy} ticks of CPU in the second after`);
    assert.ok(rss - idle.rssKiB < 64 * 1024, `RSS grew by ${rss - idle.rssKiB} KiB`);
  });

  it('ordinary patterns still match, with ignoreCase', async () => {
    const reply = await timed(
      call(server, 'terminal_snapshot', {
        sessionId,
        settleMs: 0,
        find: { pattern: 'A+!$', ignoreCase: true },
      }),
      CALL_BOUND_MS,
    );
    assert.ok(reply, `terminal_snapshot answered within ${CALL_BOUND_MS} ms`);
    const result = reply.result as {
      structuredContent: { snapshot: { matches: { column: number; text: string }[] } };
    };
    const [match] = result.structuredContent.snapshot.matches;
    assert.deepEqual(match && { column: match.column, text: match.text }, { column: 1, text: ROW });
  });
});

describe('shutdown while a pathological pattern is evaluated', () => {
  const calls: [string, (sessionId: string) => [string, Record<string, unknown>]][] = [
    [
      'find',
      (id) => ['terminal_snapshot', { sessionId: id, settleMs: 0, find: { pattern: EVIL } }],
    ],
    [
      'wait',
      (id) => [
        'terminal_input',
        { sessionId: id, actions: [{ type: 'wait', pattern: EVIL, timeoutMs: 10_000 }] },
      ],
    ],
  ];
  for (const [name, args] of calls) {
    it(`on SIGTERM during a ${name}: exits by itself within 1 s`, async () => {
      const server = await startRawRpcServer();
      try {
        const sessionId = await startRowSession(server);
        const [tool, toolArgs] = args(sessionId);
        call(server, tool, toolArgs).catch(() => undefined);
        await sleep(100);
        const since = performance.now();
        server.child.kill('SIGTERM');
        const exit = await settledWithin(server.exited(since), 3 * EXIT_BOUND_MS);
        assert.ok(exit, `the server exited within ${3 * EXIT_BOUND_MS} ms of SIGTERM`);
        assert.ok(exit.afterMs < EXIT_BOUND_MS, `exited after ${Math.round(exit.afterMs)} ms`);
        assert.equal(exit.signal, null, 'exited by itself, not killed');
      } finally {
        // A test that failed before the signal ends its server as a client does, session and all.
        if (server.isRunning()) {
          server.child.stdin.end();
          await settledWithin(server.exited(performance.now()), 3 * EXIT_BOUND_MS);
        }
        server.child.kill('SIGKILL');
      }
    });
  }
});
