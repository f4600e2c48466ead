/**
 * The guarantees of the core, each through the built server: close leaves no process behind,
 * bad input sends nothing, probes are answered, the session limit holds, oversized results are
 * refused without disconnecting, and (in the heavy layer, test/helpers/layers.ts) a firehose
 * neither blocks the server nor grows it unbounded.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { heavyOnly } from '../helpers/layers.js';
import { FIXTURES } from '../helpers/paths.js';
import { childPids, isAlive, sessionPids } from '../helpers/processes.js';
import { which } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';
import { screenText } from '../helpers/tool-calls.js';
import { sleep, waitUntil } from '../helpers/wait.js';

const linuxOnly = process.platform === 'linux' ? false : 'reads /proc';

// Side by side: each test has sessions of its own, and the tests that count or load a server
// have one of their own.
describe('guarantees', { concurrency: true }, () => {
  let h: Harness;
  before(async () => {
    h = await startServer();
  });
  after(() => h.close());

  it('close ends background jobs and children that ignore HUP, TERM and INT', {
    skip: linuxOnly,
  }, async () => {
    const { id } = await h.start({ shell: '/bin/bash', login: false, cols: 100, rows: 20 });
    await h.waitFor(id, (s) => /[$#] ?$/.test(screenText(s)));
    await h.input(id, [
      { type: 'text', text: 'sleep 999 & echo BG=$!' },
      { type: 'key', key: 'Enter' },
      // sh prints its own pid once it ignores the signals (from outside, $! could come first).
      { type: 'text', text: `sh -c 'trap "" HUP TERM INT; echo IG=$$; sleep 998; :' &` },
      { type: 'key', key: 'Enter' },
    ]);
    const screen = screenText(await h.waitFor(id, (s) => /IG=\d+/.test(screenText(s))));
    const bg = Number(/BG=(\d+)/.exec(screen)?.[1]);
    const ig = Number(/IG=(\d+)/.exec(screen)?.[1]);
    await waitUntil(() => childPids(ig).length > 0, 'the ignoring sh runs its sleep');
    const list = await h.call('terminal_list');
    const leader = list.data.sessions?.find((s) => s.sessionId === id)?.pid as number;
    const before = sessionPids(leader);
    assert.ok(before.includes(bg) && before.includes(ig), `jobs run in the session: ${before}`);
    assert.ok(before.length >= 4, 'shell, sleep, sh and its sleep');
    const closed = await h.call('terminal_close', { sessionId: id });
    assert.equal(closed.data.closed, true);
    for (const pid of before) assert.equal(isAlive(pid), false, `pid ${pid} is gone`);
    assert.deepEqual(sessionPids(leader), []);
    const again = await h.call('terminal_close', { sessionId: id });
    assert.equal(again.data.closed, false);
  });

  it('sends nothing from a batch with an invalid action anywhere in it', async () => {
    const { id } = await h.start({ command: 'cat', login: false, cols: 60, rows: 6 });
    const cases: [Record<string, unknown>[], string, number][] = [
      [
        [
          { type: 'text', text: 'ONE' },
          { type: 'key', key: 'Enter' },
          { type: 'key', key: 'Enterr' },
        ],
        'INVALID_KEY',
        2,
      ],
      [
        [
          { type: 'text', text: 'TWO' },
          { type: 'key', key: 'Enter', modifiers: ['Shift'] },
        ],
        'INVALID_KEY',
        1,
      ],
      [
        [
          { type: 'text', text: 'THREE' },
          { type: 'key', key: 'a', modifiers: ['Ctrl', 'Ctrl'] },
        ],
        'INVALID_KEY',
        1,
      ],
      [
        [
          { type: 'text', text: 'FOUR' },
          { type: 'key', key: 'Enter', text: 'x' },
        ],
        'INVALID_ARGUMENT',
        1,
      ],
      [
        [
          { type: 'text', text: 'FIVE' },
          { type: 'mouse', event: 'click', row: 1, column: 1 },
        ],
        'MOUSE_NOT_ENABLED',
        1,
      ],
    ];
    for (const [actions, code, index] of cases) {
      const reply = await h.input(id, actions);
      assert.equal(reply.data.error?.code, code, reply.text);
      assert.equal(reply.data.actionsCompleted, 0);
      assert.equal(reply.data.inputSent, false);
      assert.equal(reply.data.failedActionIndex, index);
      assert.ok(reply.data.snapshot, 'the latest screen comes with the error');
    }
    const heavy = await h.input(id, [
      { type: 'text', text: 'SEVEN' },
      { type: 'paste', text: 'p'.repeat(600 * 1024) },
      { type: 'raw', bytes: Array.from({ length: 500 * 1024 }, () => 120) },
    ]);
    assert.equal(heavy.data.error?.code, 'INVALID_ARGUMENT', 'over 1 MiB of payload');
    assert.match(heavy.text, /1048576-byte limit/);
    assert.equal(heavy.data.inputSent, false);
    const tooMany = await h.input(
      id,
      Array.from({ length: 257 }, () => ({ type: 'text', text: 'y' })),
    );
    assert.equal(tooMany.data.error?.code, 'INVALID_ARGUMENT', 'over 256 actions');
    const schema = await h.input(id, [
      { type: 'text', text: 'SIX' },
      { type: 'key', key: 'Enter', bogus: true },
    ]);
    assert.equal(schema.data.error?.code, 'INVALID_ARGUMENT');
    assert.equal(schema.data.inputSent, false);
    const screen = screenText(await h.snapshot(id, { settleMs: 300 }));
    assert.equal(screen, '', `nothing reached the program: ${screen}`);
    await h.call('terminal_close', { sessionId: id });
  });

  it('checks a queued batch against the modes and size it meets when it runs, sending nothing', async () => {
    const { id } = await h.start({
      command: `printf '\\033[?1000h\\033[?1006h'; PS1='$ ' exec bash --norc --noprofile`,
      login: false,
      cols: 80,
      rows: 40,
    });
    await h.waitFor(id, (s) => /^\$/m.test(screenText(s)) && s.mouse?.tracking !== undefined);
    // The first batch turns mouse reporting off; the second, queued behind it, clicks.
    const [off, click] = await Promise.all([
      h.input(id, [
        { type: 'text', text: `printf '\\033[?1000l'; echo OFF` },
        { type: 'key', key: 'Enter' },
        { type: 'wait', pattern: '^OFF$' },
      ]),
      h.input(id, [
        { type: 'text', text: 'HELLO' },
        { type: 'mouse', event: 'click', row: 1, column: 1 },
      ]),
    ]);
    assert.equal(off.isError, false, off.text);
    assert.equal(click.data.error?.code, 'MOUSE_NOT_ENABLED', click.text);
    assert.equal(click.data.inputSent, false);
    assert.equal(click.data.failedActionIndex, 1);
    // A resize queued ahead of a click leaves the clicked cell outside the screen.
    await h.input(id, [{ type: 'text', text: `printf '\\033[?1000h'; echo ON\r` }]);
    const [resized, outside] = await Promise.all([
      h.call('terminal_resize', { sessionId: id, cols: 80, rows: 10 }),
      h.input(id, [{ type: 'mouse', event: 'click', row: 35, column: 5 }]),
    ]);
    assert.equal(resized.isError, false, resized.text);
    assert.equal(outside.data.error?.code, 'OUT_OF_BOUNDS', outside.text);
    assert.equal(outside.data.inputSent, false);
    const screen = screenText(await h.snapshot(id, { settleMs: 300 }));
    assert.doesNotMatch(screen, /HELLO|\[<|\[M/, `nothing of either batch arrived: ${screen}`);
    await h.call('terminal_close', { sessionId: id });
  });

  it('refuses a chord written as one key, sending nothing, and names the action that works (#12)', async () => {
    const { id } = await h.start({ command: 'cat', login: false, cols: 60, rows: 6 });
    const refused = await h.input(id, [
      { type: 'text', text: 'ONE' },
      { type: 'key', key: 'Ctrl+C' },
    ]);
    assert.equal(refused.data.error?.code, 'INVALID_KEY', refused.text);
    assert.equal(
      refused.data.error?.message,
      'actions[1]: unknown key "Ctrl+C": a chord is a key plus modifiers; send {"type":"key","key":"c","modifiers":["Ctrl"]}',
    );
    assert.equal(refused.data.inputSent, false);
    assert.equal(refused.data.actionsCompleted, 0);
    const replacement = JSON.parse(
      /send (\{.*\})$/.exec(refused.data.error?.message ?? '')?.[1] ?? '',
    );
    // TWO is seen before the interrupt: an interrupt flushes echo the terminal has not read yet.
    const sent = await h.input(id, [
      { type: 'text', text: 'TWO' },
      { type: 'wait', pattern: 'TWO', timeoutMs: 10_000 },
      replacement,
      { type: 'wait', exit: true, timeoutMs: 10_000 },
    ]);
    assert.equal(sent.isError, false, sent.text);
    assert.equal(sent.data.snapshot?.status, 'exited', 'Ctrl+C ended cat');
    const screen = screenText(sent.data.snapshot as Parameters<typeof screenText>[0]);
    assert.match(screen, /TWO/);
    assert.doesNotMatch(screen, /ONE/, 'nothing of the refused batch reached cat');
    await h.call('terminal_close', { sessionId: id });
  });

  it('answers the terminal probes programs send', {
    skip: which('python3') ? false : 'python3 missing',
  }, async () => {
    const { id, snapshot } = await h.start({
      command: `python3 ${join(FIXTURES, 'probe.py')}`,
      login: false,
      cols: 100,
      rows: 12,
      // Run to the end: a slow interpreter start (a pyenv shim) can look like a settled screen.
      waitForExit: true,
      timeoutMs: 20_000,
    });
    assert.equal(snapshot.status, 'exited', screenText(snapshot));
    const text = screenText(snapshot);
    assert.match(text, /^DA1 ESC\[\?1;2c$/m);
    assert.match(text, /^DA2 ESC\[>0;276;0c$/m);
    assert.match(text, /^DSR ESC\[0n$/m);
    assert.match(text, /^CPR ESC\[1;1R$/m);
    assert.match(text, /^XTVERSION ESCP>\|agent-tty\([\d.]+\)ESC\\$/m);
    assert.match(text, /^OSC10 ESC\]10;rgb:ffff\/ffff\/ffffESC\\$/m);
    assert.match(text, /^OSC11 ESC\]11;rgb:0000\/0000\/0000ESC\\$/m);
    assert.match(text, /^KITTY ESC\[\?0u$/m);
    assert.match(text, /^DECRQM2004 ESC\[\?2004;2\$y$/m);
    assert.doesNotMatch(text, /TIMEOUT/);
    await h.call('terminal_close', { sessionId: id });
  });

  // The limit counts every session of its server: these two have a server of their own, and run
  // one after the other.
  describe('the session limit', { concurrency: false }, () => {
    let h: Harness;
    before(async () => {
      h = await startServer();
    });
    after(() => h.close());

    it('retains at most eight sessions; exited ones keep their screen and refuse input', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 7; i++)
        ids.push((await h.start({ command: 'sleep 30', login: false, settleMs: 0 })).id);
      const exited = await h.start({ command: 'echo final words; exit 4', login: false });
      ids.push(exited.id);
      const ninth = await h.call('terminal_start', { command: 'true', login: false });
      assert.equal(ninth.data.error?.code, 'SESSION_LIMIT');
      assert.match(ninth.text, /terminal_close/);
      const snap = await h.snapshot(exited.id);
      assert.equal(snap.status, 'exited');
      assert.equal(snap.exitCode, 4);
      assert.equal(snap.screen[0], 'final words');
      const input = await h.input(exited.id, [{ type: 'text', text: 'x' }]);
      assert.equal(input.data.error?.code, 'SESSION_EXITED');
      assert.equal(input.data.inputSent, false);
      const resize = await h.call('terminal_resize', { sessionId: exited.id, cols: 50, rows: 10 });
      assert.equal(resize.data.error?.code, 'SESSION_EXITED');
      for (const id of ids)
        assert.equal((await h.call('terminal_close', { sessionId: id })).data.closed, true);
      const list = await h.call('terminal_list');
      assert.deepEqual(list.data.sessions, []);
    });

    it('lets exactly eight of 20 starts racing at the limit through; the rest spawn nothing', {
      skip: linuxOnly,
    }, async () => {
      assert.deepEqual((await h.call('terminal_list')).data.sessions, []);
      const live = () => childPids(h.pid).filter(isAlive);
      const replies = await Promise.all(
        Array.from({ length: 20 }, () =>
          h.call('terminal_start', { command: 'sleep 30', login: false, settleMs: 0 }),
        ),
      );
      const started = replies.filter((r) => !r.isError).map((r) => r.data.sessionId as string);
      const refused = replies.filter((r) => r.data.error?.code === 'SESSION_LIMIT');
      assert.equal(started.length, 8, replies.map((r) => r.text.split('\n')[0]).join('\n'));
      assert.equal(refused.length, 12);
      assert.equal(new Set(started).size, 8, 'eight ids');
      const sessions = (await h.call('terminal_list')).data.sessions ?? [];
      assert.deepEqual(sessions.map((s) => s.sessionId).sort(), [...started].sort());
      const pids = sessions.map((s) => s.pid as number);
      assert.deepEqual(live().sort(), [...pids].sort(), 'a process for each session, no more');
      const closed = await Promise.all(
        started.map((sessionId) => h.call('terminal_close', { sessionId })),
      );
      assert.deepEqual(
        closed.map((r) => r.data.closed),
        started.map(() => true),
      );
      assert.deepEqual(live(), [], 'nothing is left running');
      for (const pid of pids) assert.deepEqual(sessionPids(pid), []);
    });
  });

  // A result of megabytes is built on its server's main thread: a server of its own, so that the
  // probes beside it get their replies within their own 2 s.
  describe('result size', () => {
    let h: Harness;
    before(async () => {
      h = await startServer();
    });
    after(() => h.close());

    it('refuses a result over 8 MiB with RESULT_TOO_LARGE and stays usable', async () => {
      // Every cell of a 500x200 screen in its own colours, and 2000 lines of history.
      const script = [
        'import sys',
        'w=sys.stdout.write',
        'w(("\\"" * 499 + "\\n") * 2000)',
        'for r in range(200):',
        '    w("".join("\\x1b[38;2;%d;%d;%d;48;2;%d;%d;%dmX" % (r, c % 256, c // 256, c % 256, r, 7) for c in range(500)) + ("\\n" if r < 199 else ""))',
        'w("\\x1b[0m")',
        'sys.stdout.flush()',
      ].join('\n');
      const { id } = await h.start({
        command: `python3 -c '${script}'; sleep 60`,
        login: false,
        cols: 500,
        rows: 200,
        settleMs: 500,
        settleTimeoutMs: 20_000,
      });
      const big = await h.call('terminal_snapshot', { sessionId: id, scrollbackLines: 2000 });
      assert.equal(big.data.error?.code, 'RESULT_TOO_LARGE', big.text.slice(0, 200));
      const { resultBytes, limitBytes } = (big.data.error?.details ?? {}) as {
        resultBytes: number;
        limitBytes: number;
      };
      assert.equal(limitBytes, 8 * 1024 * 1024);
      assert.ok(resultBytes > limitBytes);
      assert.equal(big.data.sessionId, id);
      assert.equal(big.data.snapshot, undefined);
      const small = await h.call('terminal_resize', { sessionId: id, cols: 100, rows: 20 });
      assert.equal(small.isError, false, small.text.slice(0, 200));
      const after = await h.snapshot(id, { scrollbackLines: 5 });
      assert.equal(after.cols, 100);
      assert.equal(after.scrollback?.lines.length, 5);
      await h.call('terminal_close', { sessionId: id });
    });
  });

  // A flood that loads the machine and measures the server's memory: in the heavy layer, on a
  // server of its own. npm test: output-memory.test.ts 'memory under a firehose' (eight sessions
  // of yes, bounded), transcript.test.ts 'searches a 3 000 000-line transcript without holding
  // up terminal_list' (seq 1 3000000 to its last line, terminal_list answering) and lossless.test.ts.
  describe('under a firehose', { skip: heavyOnly }, () => {
    let h: Harness;
    before(async () => {
      h = await startServer();
    });
    after(() => h.close());

    it('keeps answering and bounded in memory under a firehose, and loses nothing at its end', {
      timeout: 120_000,
    }, async () => {
      const yes = await h.start({ command: 'yes firehose', login: false, settleMs: 0 });
      for (let i = 0; i < 10; i++) {
        const list = await h.call('terminal_list');
        assert.equal(list.isError, false);
        await sleep(200);
      }
      if (process.platform === 'linux') {
        const status = readFileSync(`/proc/${h.pid}/status`, 'utf8');
        const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
        assert.ok(rssKb < 400 * 1024, `server RSS ${rssKb} kB stays bounded`);
      }
      const snap = await h.snapshot(yes.id, { settleMs: 0 });
      assert.match(screenText(snap), /firehose/);
      await h.call('terminal_close', { sessionId: yes.id });
      const { id, snapshot } = await h.start({
        command: 'seq 1 3000000',
        login: false,
        cols: 80,
        rows: 5,
        settleTimeoutMs: 60_000,
      });
      assert.equal(snapshot.status, 'exited');
      assert.equal(screenText(snapshot).split('\n').at(-1), '3000000');
      await h.call('terminal_close', { sessionId: id });
    });
  });
});
