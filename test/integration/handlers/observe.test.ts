/**
 * terminal_snapshot, terminal_resize, terminal_list and terminal_close through createServer on an
 * in-memory MCP connection (real PTYs and programs): the exact shape of their results, success
 * and failure. Contract: spec/tools.md and spec/errors.md.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type InMemoryServer, startInMemoryServer } from '../../helpers/in-memory-server.js';
import { assertToolError } from '../../helpers/tool-calls.js';

const SH = { shell: '/bin/sh', login: false };
const T = { timeout: 30_000 };
/** Thirty numbered lines on a five-row screen: 26 of them scroll into history. */
const LINES = `i=1; while [ $i -le 30 ]; do echo line$i; i=$((i+1)); done; exec cat`;

describe('terminal_snapshot, terminal_resize, terminal_list and terminal_close handlers', () => {
  let s: InMemoryServer;
  let id: string;
  before(async () => {
    s = await startInMemoryServer();
    id = (await s.start({ command: LINES, ...SH, cols: 20, rows: 5, settleMs: 50 })).id;
    await s.waitFor(id, (x) => x.screen[3] === 'line30');
  });
  after(async () => {
    assert.deepEqual(await s.close(), [], 'no process of any session is left');
  });

  it('returns the screen with find matches, a region, scrollback and history', T, async () => {
    const reply = await s.call('terminal_snapshot', {
      sessionId: id,
      settleMs: 0,
      find: { text: 'line30' },
      region: { row: 1, column: 1, rows: 2, cols: 5 },
      scrollbackLines: 10,
      historySince: 20,
    });
    assert.equal(reply.isError, false, reply.text);
    assert.deepEqual(Object.keys(reply.data).sort(), ['sessionId', 'snapshot']);
    const snap = reply.data.snapshot;
    assert.ok(snap);
    assert.deepEqual(snap.screen, ['line27', 'line28', 'line29', 'line30', '']);
    assert.equal(snap.historyTotal, 26);
    assert.deepEqual(snap.matches, [{ line: 30, row: 4, column: 1, endColumn: 6, text: 'line30' }]);
    assert.deepEqual(snap.region, {
      row: 1,
      column: 1,
      rows: 2,
      cols: 5,
      lines: ['line2', 'line2'],
    });
    assert.deepEqual(snap.scrollback, {
      lines: Array.from({ length: 10 }, (_, i) => `line${17 + i}`),
      availableLines: 26,
    });
    assert.deepEqual(snap.history, {
      since: 20,
      lines: ['line21', 'line22', 'line23', 'line24', 'line25', 'line26'],
      total: 26,
      missedLines: 0,
    });
  });

  it('finds in history and on the screen, numbered in one numbering', T, async () => {
    const reply = await s.call('terminal_snapshot', {
      sessionId: id,
      settleMs: 0,
      find: { pattern: '^line2\\d?$', history: 0 },
    });
    assert.equal(reply.isError, false, reply.text);
    const matches = reply.data.snapshot?.matches ?? [];
    assert.deepEqual(
      matches.map((m) => [m.line, m.row, m.text]),
      [
        [2, undefined, 'line2'],
        ...[20, 21, 22, 23, 24, 25, 26].map((n) => [n, undefined, `line${n}`]),
        [27, 1, 'line27'],
        [28, 2, 'line28'],
        [29, 3, 'line29'],
      ],
    );
    assert.equal(reply.data.snapshot?.matchesTruncated, undefined);
    assert.match(
      reply.text,
      /matches: line 2:1-5 "line2"; line 20:1-6 "line20"; .*row 1 \(line 27\):1-6 "line27"/,
    );
    const after = await s.call('terminal_snapshot', {
      sessionId: id,
      settleMs: 0,
      find: { text: 'line2', history: 24 },
    });
    assert.deepEqual(
      after.data.snapshot?.matches?.map((m) => m.line),
      [25, 26, 27, 28, 29],
      'history after line 24, then the screen',
    );
  });

  it(
    'refuses a region outside the screen with OUT_OF_BOUNDS, with the session id and latest screen',
    T,
    async () => {
      const reply = await s.call('terminal_snapshot', {
        sessionId: id,
        settleMs: 0,
        region: { row: 6, column: 1, rows: 1, cols: 1 },
      });
      const error = assertToolError(reply, 'OUT_OF_BOUNDS');
      assert.deepEqual(error.details, { cols: 20, rows: 5 });
      assert.deepEqual(Object.keys(reply.data).sort(), ['error', 'sessionId', 'snapshot']);
      assert.equal(reply.data.sessionId, id);
      assert.equal(reply.data.snapshot?.cols, 20);
      assert.match(reply.text, /\nlatest screen:\nsession /);
    },
  );

  it('answers an unknown session with SESSION_NOT_FOUND', T, async () => {
    for (const [tool, args] of [
      ['terminal_snapshot', { sessionId: 't999', settleMs: 0 }],
      ['terminal_resize', { sessionId: 't999', cols: 30, rows: 5 }],
    ] as const) {
      const reply = await s.call(tool, args);
      const error = assertToolError(reply, 'SESSION_NOT_FOUND');
      assert.deepEqual(error.details, { sessionId: 't999' }, tool);
      assert.equal(reply.data.sessionId, 't999', `${tool}: the session id the call named`);
      assert.equal(reply.data.snapshot, undefined, tool);
    }
  });

  it('resizes the terminal and returns the snapshot at the new size', T, async () => {
    const reply = await s.call('terminal_resize', {
      sessionId: id,
      cols: 30,
      rows: 8,
      settleMs: 50,
    });
    assert.equal(reply.isError, false, reply.text);
    assert.deepEqual(Object.keys(reply.data).sort(), ['sessionId', 'snapshot']);
    assert.equal(reply.data.sessionId, id);
    assert.equal(reply.data.snapshot?.cols, 30);
    assert.equal(reply.data.snapshot?.rows, 8);
    assert.equal(reply.data.snapshot?.screen.length, 8);
    const listed = (await s.call('terminal_list')).data.sessions?.find((x) => x.sessionId === id);
    assert.deepEqual([listed?.cols, listed?.rows], [30, 8]);
  });

  it(
    'refuses to resize an exited program with SESSION_EXITED and its final screen',
    T,
    async () => {
      const started = await s.call('terminal_start', {
        command: 'echo gone',
        ...SH,
        cols: 20,
        rows: 3,
        waitForExit: true,
        timeoutMs: 20_000,
      });
      const exited = started.data.sessionId as string;
      const reply = await s.call('terminal_resize', { sessionId: exited, cols: 30, rows: 5 });
      const error = assertToolError(reply, 'SESSION_EXITED');
      assert.equal(error.details.sessionId, exited);
      assert.equal(error.details.exitCode, 0);
      assert.equal(reply.data.sessionId, exited);
      assert.equal(reply.data.snapshot?.status, 'exited');
      assert.equal(reply.data.snapshot?.cols, 20, 'the size is unchanged');
      assert.match(reply.text, /latest screen/);
      assert.equal((await s.call('terminal_close', { sessionId: exited })).data.closed, true);
    },
  );

  it('lists every open session with its id, command, size, status and pid', T, async () => {
    const reply = await s.call('terminal_list');
    assert.equal(reply.isError, false, reply.text);
    assert.deepEqual(Object.keys(reply.data), ['sessions']);
    const sessions = reply.data.sessions ?? [];
    assert.deepEqual(
      sessions.map((x) => x.sessionId),
      [id],
    );
    const [entry] = sessions;
    assert.deepEqual(Object.keys(entry ?? {}).sort(), [
      'client',
      'cols',
      'command',
      'cwd',
      'pid',
      'rows',
      'sessionId',
      'startedAt',
      'status',
    ]);
    assert.equal(entry?.command, LINES);
    assert.equal(
      entry?.client,
      'agent-tty-handler-tests',
      'the name the client gave in initialize',
    );
    assert.equal(entry?.status, 'running');
    assert.equal(entry?.cwd, process.cwd());
    assert.ok(Number.isInteger(entry?.pid));
    assert.ok(!Number.isNaN(Date.parse(entry?.startedAt ?? '')));
  });

  it('closes a session (closed:true), then reports it not open (closed:false)', T, async () => {
    const first = await s.call('terminal_close', { sessionId: id });
    assert.equal(first.isError, false, first.text);
    assert.deepEqual(first.data, { sessionId: id, closed: true });
    const second = await s.call('terminal_close', { sessionId: id });
    assert.equal(second.isError, false, second.text);
    assert.deepEqual(second.data, { sessionId: id, closed: false });
    assert.deepEqual((await s.call('terminal_list')).data.sessions, []);
    const gone = await s.call('terminal_snapshot', { sessionId: id, settleMs: 0 });
    assertToolError(gone, 'SESSION_NOT_FOUND');
  });
});
