/**
 * Issue 7, "Unbreakable": the torture TUI (test/fixtures/torture.py) through the built server.
 * Escape sequences split at every byte, a screen that never stops redrawing, synchronized
 * updates, wide and combining characters, SIGWINCH storms, a firehose and a slow dialog. The
 * cases run side by side, each on a session of its own; how long calls take is reported, never
 * asserted (npm run bench measures it), and the settle deadlines are unit-tested on a fake clock
 * (test/unit/screen/settle.test.ts). The heavy layer (test/helpers/layers.ts) reads more frames
 * and runs the firehose longer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HEAVY, trials } from '../helpers/layers.js';
import { fixtureCommand, needsPython } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';
import { lastNonBlank, listLatencies, percentile, timed } from '../helpers/stress.js';
import { BUSY_POLL, type Snapshot, screenText } from '../helpers/tool-calls.js';

const torture = (...args: string[]) => fixtureCommand('torture.py', ...args);
const linux = process.platform === 'linux';
/** The default settle deadline (spec/tools.md), which a screen that never stops changing meets. */
const DEFAULT_DEADLINE_MS = 1000;
/** Seconds the firehose prints (the heavy layer's three, the original length). */
const FIREHOSE_S = HEAVY ? 3 : 1;

/** What a reader sees: everything but status and timing. */
function view(s: Snapshot) {
  const { screen, styles, spans, cursor, title, buffer, cols, rows } = s;
  return { screen, styles, spans, cursor, title, buffer, cols, rows };
}

/** Columns of the reverse-video marker cells on each row. */
function markerColumns(s: Snapshot): Map<number, number> {
  const inverse = (s.styles ?? []).findIndex(
    (st) => st.inverse === true && Object.keys(st).length === 1,
  );
  return new Map(
    (s.spans ?? []).filter((sp) => sp[3] === inverse).map(([row, start]) => [row, start]),
  );
}

describe('torture TUI', { skip: needsPython, concurrency: true }, () => {
  let h: Harness;
  before(async () => {
    h = await startServer({ args: ['--max-sessions', '16'] });
  });
  after(() => h.close());

  async function runToExit(mode: string): Promise<Snapshot> {
    const { id } = await h.start({ command: torture(mode), login: false, cols: 60, rows: 20 });
    const done = await h.waitFor(id, (s) => s.status === 'exited', 20_000);
    await h.call('terminal_close', { sessionId: id });
    return done;
  }

  it('(a) shows the same screen for sequences split at every byte as for them written whole', async () => {
    const whole = await runToExit('whole');
    const split = await runToExit('split');
    assert.equal(whole.exitCode, 0);
    assert.deepEqual(view(split), view(whole));
    // The reference itself is right, so equality means something.
    assert.equal(whole.screen[0], 'Bold underlined 208');
    assert.equal(whole.screen[3], 'caf\u00e9 中文 😀 e\u0301 done');
    assert.equal(whole.screen[4], '┌───┐ box');
    assert.equal(whole.screen[13], '\u00e9中🚀\u0301x');
    assert.equal(whole.screen[19], 'DONE');
    assert.equal(whole.title, 'split é title');
    assert.deepEqual(whole.styles?.[0], { fg: 208, bold: true, underline: true });
    assert.deepEqual(whole.spans?.[0], [1, 1, 19, 0]);
    assert.deepEqual(whole.cursor, { row: 20, column: 5, visible: true });
  });

  it('(b) keeps answering and reports consistent frames while the alternate screen redraws every 10 ms', async (t) => {
    const rows = 12;
    const { id } = await h.start({ command: torture('clock'), login: false, cols: 60, rows });
    await h.waitFor(
      id,
      (s) => s.buffer === 'alternate' && /^tick \d+$/.test(s.screen[0] ?? ''),
      20_000,
      BUSY_POLL,
    );
    let lastTick = 0;
    const check = (s: Snapshot) => {
      assert.equal(s.screen.length, rows);
      assert.equal(s.buffer, 'alternate');
      assert.equal(s.status, 'running');
      const tick = Number(/^tick (\d+)$/.exec(s.screen[0] ?? '')?.[1]);
      assert.ok(tick >= lastTick, `tick ${tick} after ${lastTick}`);
      assert.match(s.screen[1] ?? '', /^clock \d\d:\d\d:\d\d\.\d\d$/);
      for (let r = 3; r < rows; r++) {
        const n = Number(new RegExp(`^row ${r} (\\d+)$`).exec(s.screen[r - 1] ?? '')?.[1]);
        assert.ok(n === tick || n === tick - 1, `row ${r} of tick ${tick}: ${s.screen[r - 1]}`);
      }
      const bottom = Number(/^tick (\d+)$/.exec(s.screen[rows - 1] ?? '')?.[1]);
      assert.ok(bottom === tick || bottom === tick - 1, `bottom row of tick ${tick}: ${bottom}`);
      lastTick = tick;
    };
    let observing = true;
    const latencies = listLatencies(h, () => !observing, 20);
    for (let i = 0; i < trials(3); i++) {
      const { ms, value } = await timed(() => h.snapshot(id));
      check(value);
      assert.equal(value.settled, false, 'never quiet: not settled at the deadline');
      assert.equal(value.settle, 'timeout');
      // It waited for the deadline, and did not hang.
      assert.ok(
        ms >= DEFAULT_DEADLINE_MS - 50 && ms < 10 * DEFAULT_DEADLINE_MS,
        `default deadline of ${DEFAULT_DEADLINE_MS} ms (${Math.round(ms)} ms)`,
      );
    }
    for (let i = 0; i < 10; i++) {
      const value = await h.snapshot(id, { settleMs: 0 });
      check(value);
      // Quiet for 0 ms is quiet at once: not the deadline's timeout of a screen never quiet.
      assert.equal(value.settle, 'quiet', `settleMs 0 reads at once: ${value.settle}`);
    }
    observing = false;
    const times = await latencies;
    // Every terminal_list meanwhile was answered (listLatencies throws on an error); how fast is
    // reported.
    assert.ok(times.length > 0, 'terminal_list was called');
    t.diagnostic(
      `terminal_list: ${times.length} calls, p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms`,
    );
    await h.input(id, [{ type: 'key', key: 'q' }], { settleMs: 0 });
    const done = await h.waitFor(id, (s) => s.status === 'exited');
    assert.equal(done.buffer, 'normal');
    assert.equal(done.exitCode, 0);
    assert.match(screenText(done), /BYE/);
    await h.call('terminal_close', { sessionId: id });
  });

  it('(c) never settles on a frame half-drawn inside a synchronized update', async () => {
    const rows = 10;
    const { id } = await h.start({ command: torture('sync'), login: false, cols: 50, rows });
    // It draws frames on the alternate screen (its READY lasts only until the first redraw, 0.45 s
    // later: a machine busy with the other cases can miss it).
    await h.waitFor(
      id,
      (s) => s.buffer === 'alternate' && /^frame \d+ row 1\b/.test(s.screen[0] ?? ''),
      20_000,
      BUSY_POLL,
    );
    // The half-drawn frames are really there: a 1 ms deadline catches one, unsettled.
    const half = await h.waitFor(id, (s) => /HALF-DRAWN/.test(screenText(s)), 20_000, {
      settleMs: 0,
      settleTimeoutMs: 1,
    });
    assert.equal(half.settled, false);
    const timings = [{}, { settleMs: 0 }, { settleMs: 100 }];
    const frames = new Set<number>();
    // Until enough settled snapshots of enough frames (a frame every 0.75 s) have been read; the
    // deadline only ends a run that never gets there.
    const FRAMES = trials(6, 3);
    const deadline = Date.now() + 60_000;
    let settledCount = 0;
    const enough = () => settledCount >= 2 * FRAMES && frames.size >= FRAMES;
    for (let i = 0; !enough() && Date.now() < deadline; i++) {
      const s = await h.snapshot(id, timings[i % timings.length]);
      if (!s.settled) continue;
      settledCount++;
      const text = screenText(s);
      assert.doesNotMatch(text, /HALF-DRAWN/, `settled on a half-drawn frame:\n${text}`);
      const n = Number(/^frame (\d+) row 1\b/.exec(s.screen[0] ?? '')?.[1]);
      assert.equal(s.screen[rows - 1], `frame ${n} complete`, text);
      for (let r = 2; r < rows; r++) assert.equal(s.screen[r - 1], `frame ${n} row ${r}`);
      frames.add(n);
    }
    assert.ok(settledCount >= 2 * FRAMES, `${settledCount} settled snapshots`);
    assert.ok(frames.size >= FRAMES, `frames seen: ${[...frames]}`);
    await h.input(id, [{ type: 'key', key: 'q' }], { settleMs: 0 });
    await h.waitFor(id, (s) => s.status === 'exited');
    await h.call('terminal_close', { sessionId: id });
  });

  it('(d) places wide, combining and joined characters at their columns', async () => {
    const { id, snapshot } = await h.start({
      command: torture('wide'),
      login: false,
      cols: 40,
      rows: 12,
    });
    const s = snapshot.screen[9] ? snapshot : await h.waitFor(id, (x) => x.screen[9] !== '');
    // [row, screen string, column of the marker X that follows the case]
    const cases: [number, string, number][] = [
      [1, 'e\u0301X', 2],
      [2, '中文X', 5],
      [3, '😀X', 3],
      [4, '\u1100\u1161\u11a8X', 3],
      [5, '👩\u200d💻X', 5],
      [6, 'a\u0308\u0323bX', 3],
      [7, 'ＡＢX', 5],
      [8, '', 0], // the last column is left blank: 中 does not fit there
      [9, '中X', 3], // ... and wraps to the next row
    ];
    const markers = markerColumns(s);
    for (const [row, text, column] of cases) {
      assert.equal(s.screen[row - 1], text, `row ${row}`);
      if (column) assert.equal(markers.get(row), column, `marker column on row ${row}`);
    }
    assert.equal(s.screen[9], '中文😀');
    const green = (s.styles ?? []).findIndex((st) => st.fg === 2);
    assert.deepEqual(
      s.spans?.find((sp) => sp[0] === 10),
      [10, 1, 2, green],
      'a styled wide character spans both its columns',
    );
    assert.deepEqual(s.cursor, { row: 10, column: 7, visible: true });
    await h.call('terminal_close', { sessionId: id });
  });

  it('(e) ends a SIGWINCH storm at the final size, which the program saw', async () => {
    const { id } = await h.start({ command: torture('winch'), login: false, cols: 80, rows: 24 });
    await h.waitFor(id, (s) => /READY/.test(screenText(s)));
    for (let i = 0; i < 15; i++) {
      const [cols, rows] = [40 + ((i * 7) % 60), 10 + ((i * 5) % 30)];
      const reply = await h.call('terminal_resize', { sessionId: id, cols, rows, settleMs: 0 });
      assert.equal(reply.isError, false, reply.text);
      assert.equal(reply.data.snapshot?.cols, cols);
      assert.equal(reply.data.snapshot?.rows, rows);
      assert.ok((reply.data.snapshot?.screen.length ?? 99) <= rows);
    }
    const burst = Array.from({ length: 20 }, (_, i) => [30 + ((i * 11) % 90), 5 + ((i * 3) % 40)]);
    burst.push([97, 31]);
    const replies = await Promise.all(
      burst.map(([cols, rows]) =>
        h.call('terminal_resize', { sessionId: id, cols, rows, settleMs: 0 }),
      ),
    );
    for (const r of replies) assert.equal(r.isError, false, r.text);
    const s = await h.waitFor(id, (x) => /^SIZE 97x31 #\d+$/.test(x.screen[0] ?? ''));
    assert.equal(s.cols, 97);
    assert.equal(s.rows, 31);
    assert.ok(s.screen.length <= 31);
    assert.equal(s.screen[30], 'BOTTOM 97x31');
    const sessions = (await h.call('terminal_list')).data.sessions as unknown as {
      sessionId: string;
      cols: number;
    }[];
    assert.deepEqual(
      sessions.filter((x) => x.sessionId === id).map((x) => x.cols),
      [97],
    );
    await h.input(id, [{ type: 'key', key: 'q' }], { settleMs: 0 });
    await h.waitFor(id, (x) => x.status === 'exited');
    await h.call('terminal_close', { sessionId: id });
  });

  it(`(f) shows the final marker after a ${FIREHOSE_S} s firehose`, async () => {
    const { id } = await h.start({
      command: torture('firehose', String(FIREHOSE_S)),
      login: false,
      cols: 80,
      rows: 20,
      settleMs: 0,
    });
    const s = await h.waitFor(
      id,
      (x) => /^DONE \d+$/.test(lastNonBlank(x).text),
      30_000,
      BUSY_POLL,
    );
    const last = lastNonBlank(s);
    const n = Number(last.text.slice(5));
    // It writes 500 lines at a time, as many times as its seconds allow (how many is the
    // machine's speed): at least once, far past the 20 rows of the screen.
    assert.ok(n >= 500 && n % 500 === 0, `${n} lines`);
    const line = (i: number) => `fire ${String(i).padStart(9, '0')} é中 ${'='.repeat(40)}`;
    assert.equal(s.screen[last.row - 2], line(n - 1));
    const settled = await h.snapshot(id, { scrollbackLines: 100 });
    assert.equal(settled.settled, true);
    const history = settled.scrollback?.lines ?? [];
    assert.deepEqual(
      history.slice(-5),
      [4, 3, 2, 1, 0].map((k) => line(n - last.row - k)),
      'the lines before the screen are intact',
    );
    await h.input(id, [{ type: 'key', key: 'q' }]);
    await h.waitFor(id, (x) => x.status === 'exited');
    await h.call('terminal_close', { sessionId: id });
  });

  it('(g) drives a slow dialog to completion with terminal_input', async () => {
    const { id } = await h.start({ command: torture('dialog'), login: false, cols: 80, rows: 12 });
    const first = await h.waitFor(id, (s) => /Project name\?$/.test(screenText(s)));
    if (linux) assert.equal(first.waitingForInput, true, 'blocked at the prompt');
    // A longer quiet interval than the program's 0.7 s pause shows the next prompt at once.
    const named = await h.input(
      id,
      [
        { type: 'text', text: 'demo' },
        { type: 'key', key: 'Enter' },
      ],
      { settleMs: 1200 },
    );
    assert.match(screenText(named.data.snapshot as Snapshot), /checking name\.\.\.\nVersion\?$/);
    // A spinner never lets the screen settle: the result comes at the deadline, unsettled.
    const spinning = await h.input(id, [
      { type: 'text', text: '2.0' },
      { type: 'key', key: 'Enter' },
    ]);
    assert.equal(spinning.data.snapshot?.settled, false, spinning.text);
    assert.match(screenText(spinning.data.snapshot as Snapshot), /working [|/\\-]$/);
    await h.waitFor(id, (s) => /Proceed\? \[y\/N\]$/.test(screenText(s)));
    await h.input(id, [
      { type: 'text', text: 'y' },
      { type: 'key', key: 'Enter' },
    ]);
    const done = await h.waitFor(id, (s) => s.status === 'exited');
    assert.equal(done.exitCode, 0);
    assert.match(screenText(done), /^SUMMARY name=demo version=2\.0 proceed=y$/m);
    await h.call('terminal_close', { sessionId: id });
  });
});
