/**
 * The transcript lives on disk, not in the server: a session that prints 10 000 000 lines keeps
 * every one of them (historySince pages through all, in order, none missing) while the server's
 * resident memory stays within 150 MiB; the files are private (0600 in a 0700 directory) and go
 * when the session closes. When the files cannot grow (a file-size limit stands in for a full
 * disk: the kernel refuses the writes as it does on a full disk), nothing crashes, memory stays
 * bounded, the newest lines are kept and history says why older ones are missing.
 * Over stdio, against the built server and real programs. Long: run by the `heavy` layer.
 * Contract: spec/guarantees.md (Transcript, Bounds).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { linuxOnly, peakRssKiB, rssKiB } from '../helpers/processes.js';
import { type Harness, startServer } from '../helpers/server.js';
import type { Snapshot } from '../helpers/tool-calls.js';
import { sleep } from '../helpers/wait.js';

const PLAIN = { shell: '/bin/sh', login: false, cols: 80, rows: 24 };
const MAX_RSS_MIB = 150;

/** Waits for the session's program to exit; the exited snapshot. */
async function untilExited(h: Harness, id: string, onPoll: () => void): Promise<Snapshot> {
  for (;;) {
    onPoll();
    const s = await h.snapshot(id, { settleMs: 0 });
    if (s.status === 'exited') return s;
    await sleep(100);
  }
}

/** Every history line after `since`, paged with historySince; the pages' missedLines summed. */
async function readAll(
  h: Harness,
  id: string,
  since: number,
  onLine: (line: string, n: number) => void,
): Promise<{ pages: number; missed: number; last: number; error: string | undefined }> {
  let pages = 0;
  let missed = 0;
  let error: string | undefined;
  for (;;) {
    const s = await h.snapshot(id, { historySince: since, settleMs: 0 });
    const history = s.history;
    assert.ok(history);
    pages++;
    missed += history.missedLines;
    error ??= (history as { transcriptError?: string }).transcriptError;
    for (const [i, line] of history.lines.entries()) onLine(line, history.since + 1 + i);
    since = history.since + history.lines.length;
    if (history.nextSince === undefined) return { pages, missed, last: since, error };
  }
}

describe('the transcript on disk', { skip: linuxOnly, timeout: 600_000 }, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'agent-tty-transcript-disk-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('keeps 10 000 000 lines in private files with the server within 150 MiB', async (t) => {
    const h = await startServer({ env: { TMPDIR: tmp } });
    try {
      const pid = h.pid as number;
      const { id } = await h.start({ command: 'seq 1 10000000', ...PLAIN, settleMs: 0 });
      let peakSampled = 0;
      let privateChecked = false;
      const exited = await untilExited(h, id, () => {
        peakSampled = Math.max(peakSampled, rssKiB(pid) ?? 0);
        const dirs = readdirSync(tmp).filter((n) => n.startsWith(`agent-tty-transcript-${id}-`));
        assert.equal(dirs.length, 1, `one transcript directory: ${dirs}`);
        const dir = join(tmp, dirs[0] as string);
        const files = readdirSync(dir).filter((n) => n.startsWith('segment-'));
        if (files.length === 0) return;
        assert.equal(statSync(dir).mode & 0o777, 0o700);
        for (const f of files) assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, f);
        privateChecked = true;
      });
      assert.ok(privateChecked, 'the segment files were seen');
      const total = exited.historyTotal;
      // The screen's rows hold the last lines; history holds every line before them.
      const onScreen = exited.screen.filter((r) => r !== '');
      assert.equal(total + onScreen.length, 10_000_000, `history ${total}, screen ${onScreen}`);
      let expected = 1;
      let wrong = 0;
      const read = await readAll(h, id, 0, (line, n) => {
        if (line !== String(expected) || n !== expected) wrong++;
        expected++;
      });
      assert.equal(read.missed, 0, 'no line missed');
      assert.equal(wrong, 0, 'every line in order');
      assert.equal(read.last, total);
      assert.equal(read.error, undefined);
      const peak = Math.max(peakSampled, peakRssKiB(pid) ?? 0) / 1024;
      t.diagnostic(
        `${total} history lines in ${read.pages} pages; server peak RSS ${peak.toFixed(0)} MiB`,
      );
      assert.ok(peak <= MAX_RSS_MIB, `server peak RSS ${peak.toFixed(0)} MiB`);
      await h.call('terminal_close', { sessionId: id });
      assert.deepEqual(
        readdirSync(tmp).filter((n) => n.startsWith('agent-tty-transcript-')),
        [],
        'the files go at close',
      );
    } finally {
      await h.close();
    }
  });

  it('keeps the newest lines and says why when the files cannot grow', async (t) => {
    // Files of this server may not exceed 2 MiB (bash counts ulimit -f in KiB).
    const h = await startServer({
      env: { TMPDIR: tmp },
      prefix: ['bash', '-c', 'ulimit -f 2048 && exec "$0" "$@"'],
    });
    try {
      const pid = h.pid as number;
      const { id } = await h.start({ command: 'seq 1 2000000', ...PLAIN, settleMs: 0 });
      let peakSampled = 0;
      const exited = await untilExited(h, id, () => {
        peakSampled = Math.max(peakSampled, rssKiB(pid) ?? 0);
      });
      const total = exited.historyTotal;
      let first = 0;
      let expected = 0;
      let wrong = 0;
      const read = await readAll(h, id, 0, (line, n) => {
        if (first === 0) {
          first = n;
          expected = n;
        }
        if (line !== String(expected) || n !== expected) wrong++;
        expected++;
      });
      t.diagnostic(`kept lines ${first}-${read.last} of ${total}: ${read.error}`);
      assert.match(read.error ?? '', /^EFBIG: /, 'the file-size limit named as such');
      assert.ok(
        read.missed > 0 && read.missed === first - 1,
        `missed ${read.missed}, first ${first}`,
      );
      assert.equal(wrong, 0, 'the kept lines are whole and in order');
      assert.equal(read.last, total, 'down to the newest');
      // At least the lines that fit in memory while the files are refused (4 MiB of chunks).
      assert.ok(total - first > 400_000, `kept ${total - first} lines`);
      const peak = Math.max(peakSampled, peakRssKiB(pid) ?? 0) / 1024;
      assert.ok(peak <= MAX_RSS_MIB, `server peak RSS ${peak.toFixed(0)} MiB`);
      // The server and its next session are fine.
      const next = await h.start({ command: 'echo still here', ...PLAIN, settleMs: 300 });
      assert.ok(next.snapshot.screen.includes('still here'));
    } finally {
      await h.close();
    }
  });
});
