/**
 * Beyond prompts, through the built server: expect-style waits, one-shot runs, incremental
 * history, region and find, recordings, resources with update notifications, progress, and the
 * idle timeout. The tests run side by side, each on sessions of its own.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { waitGone } from '../helpers/processes.js';
import { python } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';
import { screenText } from '../helpers/tool-calls.js';
import { sleep } from '../helpers/wait.js';

const DIALOG = `python3 -c "n=input('Name? '); c=input('Color? '); print('Hi', n, c)"`;

// Side by side: each test waits on its own sessions' timers, not on the CPU.
describe('beyond', { concurrency: true }, () => {
  describe('beyond prompts', { concurrency: true }, () => {
    let h: Harness;
    let records: string;
    before(async () => {
      records = mkdtempSync(join(tmpdir(), 'agent-tty-records-'));
      // The tests' sessions at once: more than the default 8.
      h = await startServer({ args: ['--record-dir', records, '--max-sessions', '16'] });
    });
    after(async () => {
      await h.close();
      rmSync(records, { recursive: true, force: true });
    });

    it('carries a whole dialogue in one call with pattern and exit waits', async () => {
      const { id } = await h.start({
        command: DIALOG,
        login: false,
        cols: 60,
        rows: 8,
        settleMs: 0,
      });
      const reply = await h.input(id, [
        { type: 'wait', pattern: 'Name\\? $' },
        { type: 'text', text: 'Ada' },
        { type: 'key', key: 'Enter' },
        { type: 'wait', pattern: 'color', ignoreCase: true, timeoutMs: 5000 },
        { type: 'text', text: 'blue' },
        { type: 'key', key: 'Enter' },
        { type: 'wait', exit: true },
      ]);
      assert.equal(reply.isError, false, reply.text);
      const waits = reply.result.structuredContent?.waits as {
        reason: string;
        match?: { row?: number };
      }[];
      assert.deepEqual(
        waits.map((w) => w.reason),
        ['matched', 'matched', 'exited'],
      );
      assert.equal(waits[0]?.match?.row, 1);
      assert.match(screenText(reply.data.snapshot as never), /^Hi Ada blue$/m);
      assert.equal(reply.data.snapshot?.status, 'exited');
      await h.call('terminal_close', { sessionId: id });
    });

    it('stops a batch at a pattern wait that times out, and at one whose program exits first', async () => {
      const { id } = await h.start({ command: 'cat', login: false, cols: 40, rows: 4 });
      const slow = await h.input(id, [
        { type: 'text', text: 'one' },
        { type: 'wait', pattern: 'never appears', timeoutMs: 1000 },
        { type: 'text', text: 'two' },
      ]);
      assert.equal(slow.data.error?.code, 'WAIT_TIMEOUT');
      assert.equal(slow.data.failedActionIndex, 1);
      assert.equal(slow.data.actionsCompleted, 1);
      assert.equal(slow.data.snapshot?.screen[0], 'one', 'the rest of the batch did not run');
      const gone = await h.input(id, [
        { type: 'key', key: 'u', modifiers: ['Ctrl'] },
        { type: 'wait', pattern: 'one', gone: true, timeoutMs: 2000 },
      ]);
      assert.equal(gone.isError, false, gone.text);
      await h.call('terminal_close', { sessionId: id });
      const short = await h.start({ command: 'sleep 0.2', login: false, settleMs: 0 });
      const exited = await h.input(short.id, [{ type: 'wait', pattern: 'never', timeoutMs: 5000 }]);
      assert.equal(exited.data.error?.code, 'SESSION_EXITED');
      await h.call('terminal_close', { sessionId: short.id });
    });

    it('says an idle prompt attached to a failed wait is quiet, not still changing', async () => {
      const { id } = await h.start({
        command: `${python()} -q`,
        login: false,
        cols: 120,
        rows: 40,
      });
      await h.waitFor(id, (s) => s.screen[0]?.startsWith('>>>') === true);
      await sleep(300);
      const reply = await h.input(id, [{ type: 'wait', pattern: 'never appears', timeoutMs: 300 }]);
      assert.equal(reply.data.error?.code, 'WAIT_TIMEOUT');
      assert.equal(reply.data.snapshot?.settle, 'none');
      assert.ok((reply.data.snapshot?.quietMs ?? 0) >= 500, reply.text);
      assert.match(reply.text, /^session t\d+ · running · quiet for [\d.]+ m?s/m);
      assert.doesNotMatch(reply.text, /still changing/);
      assert.match(reply.text, /^ 1│>>>$/m);
      assert.match(reply.text, /^2-40│ \(blank\)$/m, 'the blank rows are one line');
      await h.call('terminal_close', { sessionId: id });
    });

    it('runs a command to completion and closes it (one-shot), or times out', async () => {
      const done = await h.call('terminal_start', {
        command: 'seq 1 100; exit 3',
        login: false,
        cols: 20,
        rows: 5,
        waitForExit: true,
        autoClose: true,
        scrollbackLines: 10,
      });
      assert.equal(done.isError, false, done.text);
      assert.equal(done.data.snapshot?.exitCode, 3);
      assert.equal(done.result.structuredContent?.closed, true);
      assert.equal(done.data.snapshot?.scrollback?.lines.at(-1), '96');
      const list = await h.call('terminal_list');
      assert.ok(!list.data.sessions?.some((s) => s.sessionId === done.data.sessionId));
      const slow = await h.call('terminal_start', {
        command: 'echo started; sleep 60',
        login: false,
        waitForExit: true,
        timeoutMs: 1500,
        autoClose: true,
      });
      assert.equal(slow.result.structuredContent?.timedOut, true);
      assert.equal(slow.result.structuredContent?.closed, true);
      assert.match(screenText(slow.data.snapshot as never), /started/);
    });

    it('reads a long log once with historySince, page by page', async () => {
      const { id } = await h.start({
        command: 'seq 1 150; sleep 60',
        login: false,
        cols: 20,
        rows: 10,
        settleMs: 300,
      });
      const first = await h.snapshot(id);
      const total = first.historyTotal as number;
      assert.equal(total, 141, 'lines 1-141 scrolled off a 10-row screen');
      const reply = await h.call('terminal_snapshot', { sessionId: id, historySince: 100 });
      const history = reply.data.snapshot?.history;
      assert.deepEqual(
        history?.lines,
        Array.from({ length: 41 }, (_, i) => String(101 + i)),
      );
      assert.equal(history?.missedLines, 0);
      await h.call('terminal_close', { sessionId: id });
      const flood = await h.start({
        command: 'seq 1 3000; sleep 60',
        login: false,
        cols: 20,
        rows: 10,
        settleMs: 300,
      });
      const over = await h.call('terminal_snapshot', { sessionId: flood.id, historySince: 0 });
      const slice = over.data.snapshot?.history;
      assert.equal(slice?.total, 2991);
      assert.equal(slice?.missedLines, 0, 'the transcript keeps what the scrollback drops');
      assert.equal(slice?.lines[0], '1');
      assert.equal(slice?.lines.length, 2000);
      assert.equal(slice?.nextSince, 2000);
      await h.call('terminal_close', { sessionId: flood.id });
    });

    it('returns a region and finds text by cell column, wide characters included', async () => {
      const { id } = await h.start({
        command: `printf 'ab日本cd\\nxy 日本 z\\n'; sleep 60`,
        login: false,
        cols: 20,
        rows: 4,
        env: { LC_ALL: 'C.UTF-8' },
        settleMs: 300,
      });
      const reply = await h.call('terminal_snapshot', {
        sessionId: id,
        region: { row: 1, column: 3, rows: 2, cols: 4 },
        find: { text: '日本' },
      });
      const snap = reply.data.snapshot;
      assert.deepEqual(
        snap?.region?.lines,
        ['日本', ' 日'],
        'a wide character cut by the edge is blank',
      );
      assert.deepEqual(
        snap?.matches?.map((m) => [m.row, m.column, m.endColumn]),
        [
          [1, 3, 5],
          [2, 4, 6],
        ],
      );
      const bad = await h.call('terminal_snapshot', { sessionId: id, find: { pattern: '(' } });
      assert.equal(bad.data.error?.code, 'INVALID_ARGUMENT');
      await h.call('terminal_close', { sessionId: id });
    });

    it('records sessions as asciicast v2 with output, input and resize events', async () => {
      const { id } = await h.start({ command: 'cat', login: false, cols: 30, rows: 5 });
      await h.input(id, [{ type: 'text', text: 'hello' }]);
      await h.call('terminal_resize', { sessionId: id, cols: 40, rows: 6 });
      const list = await h.call('terminal_list');
      const recording = (
        list.data.sessions?.find((s) => s.sessionId === id) as { recording?: string }
      )?.recording as string;
      await h.call('terminal_close', { sessionId: id });
      assert.ok(readdirSync(records).length >= 1);
      const [header, ...events] = readFileSync(recording, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.equal(header.version, 2);
      assert.equal(header.width, 30);
      assert.equal(header.command, 'cat');
      const kinds = new Set(events.map((e: [number, string, string]) => e[1]));
      assert.deepEqual([...kinds].sort(), ['i', 'o', 'r']);
      assert.ok(events.some((e: [number, string, string]) => e[1] === 'i' && e[2] === 'hello'));
      assert.ok(events.some((e: [number, string, string]) => e[1] === 'r' && e[2] === '40x6'));
      for (let i = 1; i < events.length; i++) assert.ok(events[i][0] >= events[i - 1][0]);
    });

    it('offers sessions and screens as resources, with update notifications', async () => {
      const updates: string[] = [];
      let listChanges = 0;
      h.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        updates.push(n.params.uri);
      });
      h.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
        listChanges++;
      });
      const { id } = await h.start({ command: 'cat', login: false, cols: 30, rows: 5 });
      const uri = `agent-tty://sessions/${id}/screen`;
      const { resources } = await h.client.listResources();
      assert.ok(resources.some((r) => r.uri === 'agent-tty://sessions'));
      assert.ok(resources.some((r) => r.uri === uri));
      await h.client.subscribeResource({ uri });
      await h.input(id, [{ type: 'text', text: 'resource!' }]);
      const deadline = Date.now() + 3000;
      while (!updates.includes(uri) && Date.now() < deadline) await sleep(20);
      assert.ok(updates.includes(uri), 'an update notification after the screen changed');
      const read = await h.client.readResource({ uri });
      assert.match((read.contents[0] as { text: string }).text, /resource!/);
      const sessions = await h.client.readResource({ uri: 'agent-tty://sessions' });
      assert.match((sessions.contents[0] as { text: string }).text, new RegExp(`"${id}"`));
      assert.ok(listChanges >= 1, 'list_changed after the start');
      await h.call('terminal_close', { sessionId: id });
    });

    it('sends progress notifications during a long wait', async () => {
      const { id } = await h.start({ command: 'sleep 2.5; echo ready', login: false, settleMs: 0 });
      const progress: number[] = [];
      const result = await h.client.callTool(
        {
          name: 'terminal_input',
          arguments: { sessionId: id, actions: [{ type: 'wait', pattern: 'ready' }] },
        },
        undefined,
        { onprogress: (p) => progress.push(p.progress), timeout: 30_000 },
      );
      assert.equal(result.isError, undefined);
      assert.ok(progress.length >= 2, `progress notifications: ${progress}`);
      await h.call('terminal_close', { sessionId: id });
    });
  });

  describe('idle sessions', () => {
    it('closes a session left unused past --idle-timeout, and its processes', async () => {
      const h = await startServer({ args: ['--idle-timeout', '400'] });
      try {
        const { id } = await h.start({ command: 'sleep 60', login: false, settleMs: 0 });
        const pid = (await h.call('terminal_list')).data.sessions?.[0]?.pid as number;
        // terminal_list names no session: asking it leaves the idle time running.
        const deadline = Date.now() + 20_000;
        while ((await h.call('terminal_list')).data.sessions?.length !== 0) {
          assert.ok(Date.now() < deadline, `session ${id} was closed once idle`);
          await sleep(50);
        }
        assert.deepEqual(await waitGone([pid], 10_000), [], 'its processes are gone');
        // An agent coming back is told what happened, not only that the id is unknown.
        const late = await h.call('terminal_snapshot', { sessionId: id });
        assert.equal(late.data.error?.code, 'SESSION_NOT_FOUND');
        assert.match(
          String(late.data.error?.message),
          /was closed after 400 ms with no tool call naming it \(the server's --idle-timeout\)/,
        );
      } finally {
        await h.close();
      }
    });
  });
});
