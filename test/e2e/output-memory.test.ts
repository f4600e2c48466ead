/**
 * Output that tries to make the emulator hold more than the screen shows: combining marks piled
 * on every cell (each one a small string of its own inside the emulator), and OSC and DCS strings
 * of many megabytes (collected character by character). The server's resident memory must stay
 * near what plain text of the same size costs, while the session that printed it is still open.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { rssKiB } from '../helpers/processes.js';
import { fixtureCommand, needsPython } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';
import { memoryBoundMiB } from '../helpers/stress.js';
import { sleep } from '../helpers/wait.js';

/** Peak resident memory allowed (an idle server holds about 60 MiB, 12 MB of plain text ~85). */
const PEAK_RSS_MIB = 150;
const linuxOnly = process.platform === 'linux' ? false : 'reads /proc';
/**
 * Peak with 8 sessions of `yes`: about 120 MiB on Node 20 and, with the young generation bounded,
 * on Node 24 too (233 MiB with V8 13's default semi-space there); the transcripts' lines are on
 * disk, so what is measured is the emulators, the heap and the transcripts' working chunks.
 */
const FIREHOSE_RSS_MIB = memoryBoundMiB(8);
const FIREHOSE_SECONDS = 8;

describe('output memory', { skip: needsPython || linuxOnly, timeout: 180_000 }, () => {
  let h: Harness;
  let dir: string;
  before(async () => {
    h = await startServer();
    dir = mkdtempSync(join(tmpdir(), 'agent-tty-memory-'));
  });
  after(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Runs the fixture until it has printed everything, sampling the server's RSS; returns the
   * peak in MiB. Nothing reads the screen meanwhile (reading text happens to compact the cells
   * it reads): the fixture says it is done by creating a file.
   */
  async function peakWhile(...args: string[]): Promise<number> {
    const done = join(dir, `${args[0]}.done`);
    const command = fixtureCommand('hostile.py', ...args, done);
    const samples: number[] = [rssKiB(h.pid) ?? 0];
    const sampler = setInterval(() => samples.push(rssKiB(h.pid) ?? 0), 50);
    try {
      const { id } = await h.start({ command, login: false, cols: 120, rows: 40, settleMs: 0 });
      const deadline = Date.now() + 150_000;
      while (!existsSync(done) && Date.now() < deadline) await sleep(50);
      assert.ok(existsSync(done), 'the fixture printed everything');
      await sleep(500);
      const s = await h.snapshot(id, { settleMs: 500, settleTimeoutMs: 60_000 });
      assert.ok(
        s.screen.some((line) => line.startsWith('END')),
        s.screen.join('\n'),
      );
      samples.push(rssKiB(h.pid) ?? 0);
      await h.call('terminal_close', { sessionId: id });
    } finally {
      clearInterval(sampler);
    }
    return Math.max(...samples) / 1024;
  }

  it('holds 12 MB of text with 100 combining marks per cell in bounded memory', async (t) => {
    const peak = await peakWhile('marks', '500', '120', '100');
    t.diagnostic(`server RSS peak ${peak.toFixed(1)} MiB`);
    assert.ok(peak < PEAK_RSS_MIB, `peak RSS ${peak.toFixed(1)} MiB`);
  });

  it('holds an 8 MiB OSC title and an 8 MiB DCS request in bounded memory', async (t) => {
    const peak = await peakWhile('string', '8');
    t.diagnostic(`server RSS peak ${peak.toFixed(1)} MiB`);
    assert.ok(peak < PEAK_RSS_MIB, `peak RSS ${peak.toFixed(1)} MiB`);
  });
});

describe('memory under a firehose', { skip: linuxOnly, timeout: 120_000 }, () => {
  let h: Harness;
  before(async () => {
    h = await startServer();
  });
  after(() => h.close());

  it(`keeps 8 sessions of yes under ${FIREHOSE_RSS_MIB.toFixed(0)} MiB on every supported Node`, async (t) => {
    const ids: string[] = [];
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(rssKiB(h.pid) ?? 0), 50);
    try {
      for (let i = 0; i < 8; i++) {
        ids.push((await h.start({ command: 'yes', login: false, settleMs: 0 })).id);
      }
      await sleep(FIREHOSE_SECONDS * 1000);
    } finally {
      clearInterval(sampler);
      for (const id of ids) await h.call('terminal_close', { sessionId: id });
    }
    const peak = Math.max(...samples) / 1024;
    t.diagnostic(`Node ${process.version}: server RSS peak ${peak.toFixed(1)} MiB`);
    assert.ok(
      peak < FIREHOSE_RSS_MIB,
      `peak RSS ${peak.toFixed(1)} MiB on Node ${process.version}`,
    );
  });
});
