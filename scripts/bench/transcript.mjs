// The transcript on disk: a session prints `seq 1 N` (100 000 and 10 000 000 lines) in a fresh
// server; then the bytes its files take, the server's resident memory (now and at its peak,
// beside the idle server's), and one find over the whole transcript for a line that is not there
// (every line searched), beside grep -c over the same lines in a file on this machine.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryMiB } from './proc.mjs';
import { startRawClient } from './raw-client.mjs';

export const TRANSCRIPT_LINES = [100_000, 10_000_000];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Bytes in every file under `dir`. */
function diskBytes(dir) {
  let sum = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    sum += entry.isDirectory() ? diskBytes(path) : statSync(path).size;
  }
  return sum;
}

/** One run for `lines` lines: `{ diskBytes, rssMiB, peakMiB, idleMiB, findMs, grepMs, historyTotal }`. */
export async function transcriptOnce(lines) {
  const tmp = mkdtempSync(join(tmpdir(), 'agent-tty-bench-transcript-'));
  const client = await startRawClient({ env: { TMPDIR: tmp } });
  try {
    await client.call('terminal_list', {});
    const idleMiB = memoryMiB(client.pid).rss;
    const started = await client.call(
      'terminal_start',
      {
        command: `seq 1 ${lines}`,
        shell: '/bin/sh',
        login: false,
        settleMs: 0,
        cols: 80,
        rows: 24,
      },
      30_000,
    );
    if (!started.result) throw new Error(`terminal_start: ${started.error ?? 'timed out'}`);
    const id = started.result.structuredContent.sessionId;
    let snapshot;
    for (;;) {
      const r = await client.call('terminal_snapshot', { sessionId: id, settleMs: 0 }, 60_000);
      snapshot = r.result?.structuredContent.snapshot;
      if (snapshot?.status === 'exited') break;
      await sleep(100);
    }
    const { rss, peak } = memoryMiB(client.pid);
    const t = performance.now();
    const found = await client.call(
      'terminal_snapshot',
      { sessionId: id, settleMs: 0, find: { text: 'no such line', history: 0 } },
      120_000,
    );
    const findMs = performance.now() - t;
    if (!found.result) throw new Error(`find: ${found.error ?? 'timed out'}`);
    // The machine's own figure: grep counting the same lines in a file.
    const file = join(tmp, 'lines.txt');
    writeFileSync(file, execFileSync('seq', ['1', String(lines)], { maxBuffer: 1 << 30 }));
    const g = performance.now();
    try {
      execFileSync('grep', ['-c', 'no such line', file]);
    } catch {
      // grep exits 1 when nothing matches.
    }
    const grepMs = performance.now() - g;
    rmSync(file);
    return {
      diskBytes: diskBytes(tmp),
      rssMiB: rss,
      peakMiB: peak,
      idleMiB,
      findMs,
      grepMs,
      historyTotal: snapshot.historyTotal,
    };
  } finally {
    await client.kill();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The transcript rows, a median of `runs` runs for 100 000 lines and one run for 10 000 000. */
export async function reportTranscript(report, fmt, runs) {
  for (const lines of TRANSCRIPT_LINES) {
    const n = lines > 1_000_000 ? 1 : runs;
    const results = [];
    for (let i = 0; i < n; i++) results.push(await transcriptOnce(lines));
    const median = (key) => [...results.map((r) => r[key])].sort((a, b) => a - b)[n >> 1];
    const label = lines.toLocaleString('en-US').replaceAll(',', ' ');
    const disk = median('diskBytes');
    report(
      `transcript, ${label} lines: files on disk`,
      fmt(disk / 2 ** 20, 1),
      'MiB',
      `${fmt(median('historyTotal') / 1e6, 2)} M lines kept`,
      '',
      '',
    );
    report(
      `transcript, ${label} lines: server RSS / peak`,
      `${fmt(median('rssMiB'), 0)} / ${fmt(median('peakMiB'), 0)}`,
      'MiB',
      `${fmt(median('idleMiB'), 0)} MiB idle`,
      fmt(median('peakMiB') / median('idleMiB'), 1),
      '<= 150 MiB',
      median('peakMiB') <= 150,
    );
    report(
      `find over all ${label} lines (no match)`,
      fmt(median('findMs'), 0),
      'ms',
      `${fmt(median('grepMs'), 0)} ms grep -c on a file`,
      fmt(median('findMs') / median('grepMs'), 0),
      '',
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const lines of TRANSCRIPT_LINES)
    console.log(lines, JSON.stringify(await transcriptOnce(lines)));
}
