/**
 * terminal_input through createServer on an in-memory MCP connection (real PTYs and programs):
 * the exact shape of its results, and of every failure with its progress fields
 * (actionsCompleted, inputSent, failedActionIndex) and the latest screen. Contract:
 * spec/tools.md (terminal_input) and spec/errors.md.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type InMemoryServer, startInMemoryServer } from '../../helpers/in-memory-server.js';
import { assertToolError, screenText, toToolReply } from '../../helpers/tool-calls.js';
import { sleep, waitUntil } from '../../helpers/wait.js';

const SH = { shell: '/bin/sh', login: false };
const T = { timeout: 30_000 };
const NEVER = 'agent-tty-never-shown';

describe('terminal_input handler', () => {
  let s: InMemoryServer;
  before(async () => {
    s = await startInMemoryServer();
  });
  afterEach(async () => {
    for (const { sessionId } of s.registry.list()) {
      await s.call('terminal_close', { sessionId });
    }
  });
  after(async () => {
    assert.deepEqual(await s.close(), [], 'no process of any session is left');
  });

  /** A session running cat: what it is sent comes back on the screen. */
  async function startCat(): Promise<string> {
    return (await s.start({ command: 'exec cat', ...SH, cols: 40, rows: 5, settleMs: 50 })).id;
  }

  /** Proves nothing earlier reached the program: a marker typed now is the first thing shown. */
  async function assertNothingSent(id: string): Promise<void> {
    const marked = await s.input(id, [
      { type: 'text', text: 'MARK' },
      { type: 'key', key: 'Enter' },
      { type: 'wait', pattern: '^MARK\\n', timeoutMs: 10_000 },
    ]);
    assert.equal(marked.isError, false, marked.text);
    assert.equal(marked.data.snapshot?.screen[0], 'MARK', 'the marker is the first row');
  }

  /** Waits until a batch is running on the session (its queue is busy). */
  async function whileBusy(id: string): Promise<void> {
    await waitUntil(() => (s.registry.find(id)?.queue.size ?? 0) > 0, `a batch runs on ${id}`);
  }

  it('returns actionsCompleted, inputSent and the snapshot', T, async () => {
    const id = await startCat();
    const reply = await s.input(
      id,
      [
        { type: 'text', text: 'hello' },
        { type: 'key', key: 'Enter' },
      ],
      {
        settleMs: 50,
      },
    );
    assert.equal(reply.isError, false, reply.text);
    assert.deepEqual(Object.keys(reply.data).sort(), [
      'actionsCompleted',
      'inputSent',
      'sessionId',
      'snapshot',
    ]);
    assert.equal(reply.data.sessionId, id);
    assert.equal(reply.data.actionsCompleted, 2);
    assert.equal(reply.data.inputSent, true);
    assert.equal(reply.data.snapshot?.rows, 5);
    assert.match(reply.text, /actionsCompleted: 2/);
    const echoed = await s.waitFor(id, (x) => x.screen[1] === 'hello');
    assert.equal(echoed.screen[0], 'hello', 'the terminal echoed it; cat wrote it back');
  });

  it('reports each wait for a condition in waits', T, async () => {
    const id = await startCat();
    const reply = await s.input(id, [
      { type: 'text', text: 'ping' },
      { type: 'key', key: 'Enter' },
      { type: 'wait', pattern: 'ping\\nping', timeoutMs: 10_000 },
    ]);
    assert.equal(reply.isError, false, reply.text);
    assert.equal(reply.data.actionsCompleted, 3);
    const { waits } = reply.data as { waits?: { actionIndex: number; reason: string }[] };
    assert.equal(waits?.length, 1);
    assert.equal(waits?.[0]?.actionIndex, 2);
    assert.equal(waits?.[0]?.reason, 'matched');
  });

  it('answers an unknown session with SESSION_NOT_FOUND and nothing sent', T, async () => {
    const reply = await s.input('t999', [{ type: 'text', text: 'x' }]);
    const error = assertToolError(reply, 'SESSION_NOT_FOUND');
    assert.deepEqual(error.details, { sessionId: 't999' });
    assert.deepEqual(reply.data, {
      sessionId: 't999',
      actionsCompleted: 0,
      inputSent: false,
      error,
    });
    assert.match(reply.text, /terminal_list/);
  });

  it('refuses a schema error with INVALID_ARGUMENT and sends nothing', T, async () => {
    const id = await startCat();
    const reply = await s.input(id, [
      { type: 'text', text: 'SCHEMA' },
      { type: 'key', key: 'Enter', bogus: true },
    ]);
    const error = assertToolError(reply, 'INVALID_ARGUMENT');
    assert.ok(Array.isArray(error.details.issues), 'details.issues lists the problems');
    assert.deepEqual(reply.data, { sessionId: id, actionsCompleted: 0, inputSent: false, error });
    await assertNothingSent(id);
  });

  it('refuses a field that does not apply to its action, naming the action', T, async () => {
    const id = await startCat();
    const reply = await s.input(id, [
      { type: 'text', text: 'FIELD' },
      { type: 'key', key: 'Enter', text: 'x' },
    ]);
    const error = assertToolError(reply, 'INVALID_ARGUMENT');
    assert.equal(error.details.actionIndex, 1);
    assert.equal(reply.data.failedActionIndex, 1);
    assert.equal(reply.data.actionsCompleted, 0);
    assert.equal(reply.data.inputSent, false);
    assert.ok(reply.data.snapshot, 'the latest screen comes with the error');
    await assertNothingSent(id);
  });

  const UNSENDABLE: [string, string, Record<string, unknown>, RegExp][] = [
    [
      'a key with no encoding in the current keyboard mode',
      'INVALID_KEY',
      {
        type: 'key',
        key: 'Enter',
        modifiers: ['Shift'],
      },
      /Shift\+Enter/,
    ],
    [
      'a mouse action while the program has not enabled mouse reporting',
      'MOUSE_NOT_ENABLED',
      {
        type: 'mouse',
        event: 'click',
        row: 1,
        column: 1,
      },
      // Issue 12: the keyboard is offered too.
      /:set mouse=a\), or use the keyboard: key actions for arrow keys and Enter, or the program's own keys$/,
    ],
  ];
  for (const [what, code, action, message] of UNSENDABLE) {
    it(
      `refuses ${what} with ${code} before sending anything, with the latest screen`,
      T,
      async () => {
        const id = await startCat();
        const reply = await s.input(id, [{ type: 'text', text: 'BEFORE' }, action]);
        const error = assertToolError(reply, code);
        assert.equal(error.details.actionIndex, 1);
        assert.match(error.message, message);
        assert.deepEqual(Object.keys(reply.data).sort(), [
          'actionsCompleted',
          'error',
          'failedActionIndex',
          'inputSent',
          'sessionId',
          'snapshot',
        ]);
        assert.equal(reply.data.sessionId, id);
        assert.equal(reply.data.failedActionIndex, 1);
        assert.equal(reply.data.actionsCompleted, 0);
        assert.equal(reply.data.inputSent, false);
        assert.equal(reply.data.snapshot?.status, 'running');
        assert.match(reply.text, /latest screen/);
        assert.match(reply.text, /actionsCompleted: 0, inputSent: false, failedActionIndex: 1/);
        await assertNothingSent(id);
      },
    );
  }

  it(
    'stops a batch at a failing wait: earlier actions stay applied (WAIT_TIMEOUT)',
    T,
    async () => {
      const id = await startCat();
      const reply = await s.input(id, [
        { type: 'text', text: 'midway' },
        { type: 'wait', pattern: NEVER, timeoutMs: 300 },
        { type: 'text', text: 'never-typed' },
      ]);
      const error = assertToolError(reply, 'WAIT_TIMEOUT');
      assert.equal(error.details.timeoutMs, 300);
      assert.equal(reply.data.sessionId, id);
      assert.equal(reply.data.actionsCompleted, 1);
      assert.equal(reply.data.inputSent, true);
      assert.equal(reply.data.failedActionIndex, 1);
      assert.ok(reply.data.snapshot, 'the latest screen comes with the error');
      assert.match(reply.text, /latest screen/);
      const shown = await s.waitFor(id, (x) => x.screen[0] === 'midway');
      assert.doesNotMatch(screenText(shown), /never-typed/);
    },
  );

  it('labels the latest screen of a failed wait by how long it has been quiet', T, async () => {
    const { id } = await s.start({
      command: "printf 'ready> '; exec cat",
      ...SH,
      cols: 40,
      rows: 5,
      settleMs: 50,
    });
    await s.waitFor(id, (x) => x.screen[0]?.startsWith('ready>') === true);
    await sleep(400);
    const reply = await s.input(id, [{ type: 'wait', pattern: NEVER, timeoutMs: 300 }]);
    assertToolError(reply, 'WAIT_TIMEOUT');
    const snapshot = reply.data.snapshot;
    assert.ok(snapshot, 'the latest screen comes with the error');
    assert.equal(snapshot.settled, false, 'no settle wait ran');
    assert.equal(snapshot.settle, 'none');
    assert.ok((snapshot.quietMs ?? 0) >= 600, `quiet since before the wait: ${snapshot.quietMs}`);
    assert.match(
      reply.text,
      /\nlatest screen:\nsession t\d+ · running · quiet for \d+ ms( · waiting for input)?\n/,
    );
    assert.doesNotMatch(reply.text, /still changing|not settled/);
  });

  it('refuses a batch carrying over 1 MiB with INVALID_ARGUMENT and the sizes', T, async () => {
    const id = await startCat();
    const text = 'p'.repeat(600 * 1024);
    const reply = await s.input(id, [
      { type: 'text', text },
      { type: 'paste', text },
    ]);
    const error = assertToolError(reply, 'INVALID_ARGUMENT');
    assert.deepEqual(error.details, { payloadBytes: 2 * 600 * 1024, limitBytes: 1024 * 1024 });
    assert.equal(reply.data.actionsCompleted, 0);
    assert.equal(reply.data.inputSent, false);
    assert.equal(reply.data.failedActionIndex, undefined);
    assert.ok(reply.data.snapshot, 'the latest screen comes with the error');
    await assertNothingSent(id);
  });

  it('refuses input to an exited program with SESSION_EXITED and its final screen', T, async () => {
    const started = await s.call('terminal_start', {
      command: 'echo bye; exit 3',
      ...SH,
      cols: 20,
      rows: 3,
      waitForExit: true,
      timeoutMs: 20_000,
    });
    const id = started.data.sessionId as string;
    assert.equal(started.data.snapshot?.status, 'exited');
    const reply = await s.input(id, [{ type: 'text', text: 'x' }]);
    const error = assertToolError(reply, 'SESSION_EXITED');
    assert.equal(error.details.sessionId, id);
    assert.equal(error.details.status, 'exited');
    assert.equal(error.details.exitCode, 3);
    assert.equal(reply.data.actionsCompleted, 0);
    assert.equal(reply.data.inputSent, false);
    assert.equal(reply.data.snapshot?.status, 'exited');
    assert.equal(reply.data.snapshot?.screen[0], 'bye');
    assert.equal(reply.data.snapshot?.settled, true, 'an exited screen is final');
    assert.equal(reply.data.snapshot?.settle, 'exited');
    assert.equal((await s.call('terminal_close', { sessionId: id })).data.closed, true);
  });

  it('ends a batch with SESSION_CLOSED when its session is closed while it waits', T, async () => {
    const id = await startCat();
    const waiting = s.input(id, [{ type: 'wait', pattern: NEVER, timeoutMs: 30_000 }]);
    await whileBusy(id);
    assert.equal((await s.call('terminal_close', { sessionId: id })).data.closed, true);
    const reply = await waiting;
    const error = assertToolError(reply, 'SESSION_CLOSED');
    assert.deepEqual(error.details, { sessionId: id });
    assert.deepEqual(reply.data, {
      sessionId: id,
      actionsCompleted: 0,
      inputSent: false,
      failedActionIndex: 0,
      error,
    });
  });

  it('stops a batch the client cancels with CANCELLED; the session stays usable', T, async () => {
    const id = await startCat();
    const controller = new AbortController();
    const call = s.client.callTool(
      {
        name: 'terminal_input',
        arguments: {
          sessionId: id,
          actions: [
            { type: 'wait', pattern: NEVER, timeoutMs: 30_000 },
            { type: 'text', text: 'AFTER' },
          ],
        },
      },
      undefined,
      { signal: controller.signal },
    );
    await whileBusy(id);
    controller.abort(new Error('the test cancels'));
    await assert.rejects(call, /the test cancels/);
    // MCP sends no reply to a cancelled request: the result is read where the server made it.
    await waitUntil(
      () => s.handled().some((h) => h.cancelled),
      'the server finished the cancelled call',
    );
    const cancelled = s.handled().find((h) => h.cancelled);
    assert.equal(cancelled?.name, 'terminal_input');
    const reply = toToolReply(cancelled?.result as CallToolResult);
    const error = assertToolError(reply, 'CANCELLED');
    assert.equal(reply.data.sessionId, id);
    assert.equal(reply.data.actionsCompleted, 0);
    assert.equal(reply.data.inputSent, false);
    assert.equal(reply.data.failedActionIndex, 0);
    assert.deepEqual(error.details, {});
    assert.ok(reply.data.snapshot, 'the latest screen comes with the error');
    await assertNothingSent(id);
  });
});
