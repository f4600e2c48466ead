/**
 * Memory of the largest screens: 8 sessions at 500x200 with full scrollbacks (2 400 lines
 * printed each: the default 2 000 lines of scrollback and the screen) of plain, accented and
 * combining text keep the server's peak resident memory under the documented bound; so do
 * three resizes of each to 2 columns and back, which rewrap them, while terminal_list keeps
 * answering. Peaks are the server's VmHWM, each load in a fresh server.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { heavyOnly } from '../helpers/layers.js';
import { linuxOnly, peakRssKiB } from '../helpers/processes.js';
import { fixtureCommand, needsPython } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';
import {
  CELL_BYTES,
  emulatorMiB,
  listLatencies,
  memoryBoundMiB,
  percentile,
  timed,
} from '../helpers/stress.js';
import { sleep } from '../helpers/wait.js';

const SESSIONS = 8;
const COLS = 500;
const ROWS = 200;
const LINES = 2400;
/**
 * terminal_list's 99th percentile reply time while sessions are rewrapped: measured 28-45 ms on a
 * quiet 2-core machine, 130-420 ms when it is shared (load average 10-15); 15.6 s when a resize
 * rewrapped 2 000 lines of scrollback.
 */
const LIST_P99_MS = 1000;

interface Text {
  readonly name: string;
  /** The character of every cell and the combining accents joined to it. */
  readonly base: string;
  readonly marks: number;
  /** Bytes the emulator takes for one such cell. */
  readonly cellBytes: number;
}

const PLAIN: Text = { name: 'plain', base: 'e', marks: 0, cellBytes: CELL_BYTES.character };
const ACCENTED: Text = { name: 'accented', base: 'é', marks: 0, cellBytes: CELL_BYTES.character };
const COMBINING: Text = { name: 'combining', base: 'e', marks: 1, cellBytes: CELL_BYTES.joined(2) };

/** The documented bound for 8 sessions of `text` (their transcripts are on disk). */
function boundMiB(text: Text): number {
  return memoryBoundMiB(SESSIONS, emulatorMiB(COLS, ROWS, text.cellBytes));
}

const peakMiB = (h: Harness) => (peakRssKiB(h.pid) ?? 0) / 1024;

describe('memory of the largest screens', {
  skip: needsPython || linuxOnly,
  timeout: 900_000,
}, () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-tty-screens-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * Starts SESSIONS sessions at COLS x ROWS, session i printing texts[i % texts.length], and
   * waits until each has printed everything and the screen shows it.
   */
  async function fill(h: Harness, texts: readonly Text[]): Promise<string[]> {
    const ids: string[] = [];
    const done: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const text = texts[i % texts.length] as Text;
      done.push(join(dir, `${text.name}-${h.pid}-${i}`));
      const command = fixtureCommand(
        'hostile.py',
        'marks',
        String(LINES),
        String(COLS),
        String(text.marks),
        done[i] as string,
        text.base,
      );
      ids.push((await h.start({ command, login: false, cols: COLS, rows: ROWS, settleMs: 0 })).id);
    }
    const deadline = Date.now() + 600_000;
    while (!done.every((path) => existsSync(path)) && Date.now() < deadline) await sleep(100);
    assert.ok(
      done.every((path) => existsSync(path)),
      'every session printed everything',
    );
    // Side by side: each waits for its own screen to settle.
    await Promise.all(
      ids.map(async (id) => {
        const s = await h.waitFor(id, (x) => x.screen.at(-1) === 'END', 120_000, {
          settleMs: 200,
          settleTimeoutMs: 30_000,
        });
        assert.equal(
          s.historyTotal,
          LINES - ROWS + 1,
          `${id}: every line but the screen's scrolled off`,
        );
      }),
    );
    return ids;
  }

  // Accented text in the heavy layer: its cells are one code point each, as plain text's are,
  // and cost the same (CELL_BYTES.character).
  for (const [text, skip] of [
    [PLAIN, false],
    [ACCENTED, heavyOnly],
    [COMBINING, false],
  ] as const) {
    const bound = boundMiB(text);
    it(`keeps ${SESSIONS} sessions of ${text.name} text at ${COLS}x${ROWS} under ${bound.toFixed(0)} MiB`, {
      skip,
    }, async (t) => {
      const h = await startServer();
      try {
        await fill(h, [text]);
        const peak = peakMiB(h);
        t.diagnostic(
          `${text.name}: server peak RSS ${peak.toFixed(1)} MiB (bound ${bound.toFixed(1)})`,
        );
        assert.ok(peak < bound, `peak RSS ${peak.toFixed(1)} MiB, bound ${bound.toFixed(1)} MiB`);
      } finally {
        await h.close();
      }
    });
  }

  const bound = Math.max(boundMiB(PLAIN), boundMiB(COMBINING));
  it(`rewraps them to 2 columns and back three times under ${bound.toFixed(0)} MiB, terminal_list answering`, async (t) => {
    const h = await startServer();
    try {
      const ids = await fill(h, [PLAIN, COMBINING]);
      let isResizing = true;
      const listing = listLatencies(h, () => !isResizing);
      const resizes: number[] = [];
      try {
        for (let round = 0; round < 3; round++) {
          for (const id of ids) {
            for (const cols of [2, COLS]) {
              const { ms, value } = await timed(() =>
                h.call('terminal_resize', { sessionId: id, cols, rows: ROWS, settleMs: 0 }),
              );
              assert.equal(value.isError, false, value.text.slice(0, 300));
              resizes.push(ms);
            }
          }
        }
      } finally {
        isResizing = false;
      }
      const lists = await listing;
      const peak = peakMiB(h);
      const p99 = percentile(lists, 99);
      t.diagnostic(
        `server peak RSS ${peak.toFixed(1)} MiB (bound ${bound.toFixed(1)}); ` +
          `${resizes.length} resizes, p50 ${percentile(resizes, 50).toFixed(0)} ms, ` +
          `slowest ${Math.max(...resizes).toFixed(0)} ms; terminal_list ${lists.length} calls, ` +
          `p50 ${percentile(lists, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, ` +
          `slowest ${Math.max(...lists).toFixed(1)} ms`,
      );
      assert.ok(peak < bound, `peak RSS ${peak.toFixed(1)} MiB, bound ${bound.toFixed(1)} MiB`);
      assert.ok(lists.length >= 20, `terminal_list was called ${lists.length} times`);
      assert.ok(p99 < LIST_P99_MS, `terminal_list p99 ${p99.toFixed(1)} ms`);
      // Rewrapped back, each screen ends with the last line printed, whole, above the cursor's
      // row (which the emulator leaves to the program, cut to 2 columns: "EN").
      for (const [i, id] of ids.entries()) {
        const text = i % 2 === 0 ? PLAIN : COMBINING;
        const s = await h.snapshot(id, { settleMs: 0 });
        assert.equal(s.screen.at(-1), 'EN');
        assert.equal(s.screen.at(-2), (text.base + '\u0301'.repeat(text.marks)).repeat(COLS));
      }
    } finally {
      await h.close();
    }
  });
});
