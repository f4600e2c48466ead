// The firehose: eight sessions of `yes` at once, as fast as the terminal takes it, in a fresh
// server. While they run, terminal_list is called in a loop (what an idle session's caller waits)
// and the server's peak resident set (VmHWM) is read at the end. Each run is its own server.
import { memoryMiB, watchProcess } from './proc.mjs';
import { startRawClient } from './raw-client.mjs';

export const FIREHOSE = { sessions: 8, warmupMs: 1000, loadMs: 10_000, gapMs: 20 };

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const percentile = (values, p) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
};

/** One run: `{ p50, p99, count, failed, peakMiB, idleListMs, idleMiB, cpuPercent }`. */
export async function firehoseOnce(options = {}) {
  const { sessions, warmupMs, loadMs, gapMs } = { ...FIREHOSE, ...options };
  const client = await startRawClient();
  try {
    const idleTimes = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await client.call('terminal_list', {}, 5000);
      idleTimes.push(performance.now() - t);
    }
    const idleMiB = memoryMiB(client.pid).rss;
    for (let i = 0; i < sessions; i++) {
      const r = await client.call(
        'terminal_start',
        { command: 'yes', shell: '/bin/sh', login: false, settleMs: 0, cols: 80, rows: 24 },
        30_000,
      );
      if (!r.result) throw new Error(`terminal_start: ${r.error ?? 'timed out'}`);
    }
    await sleep(warmupMs);
    const watch = watchProcess(client.pid);
    const times = [];
    let failed = 0;
    const until = performance.now() + loadMs;
    while (performance.now() < until) {
      const t = performance.now();
      const outcome = await client.call('terminal_list', {}, 15_000);
      times.push(performance.now() - t);
      if (!outcome.result) failed++;
      await sleep(gapMs);
    }
    const stats = watch.stop();
    return {
      p50: percentile(times, 0.5),
      p99: percentile(times, 0.99),
      count: times.length,
      failed,
      peakMiB: memoryMiB(client.pid).peak,
      idleListMs: percentile(idleTimes, 0.5),
      idleMiB,
      cpuPercent: stats.cpuPercent,
    };
  } finally {
    await client.kill();
  }
}

/** The firehose rows: terminal_list p50/p99 beside its idle figure, and the server's VmHWM. */
export async function reportFirehose(report, fmt, runs) {
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await firehoseOnce());
  const median = (key) => [...results.map((r) => r[key])].sort((a, b) => a - b)[runs >> 1];
  const p99 = median('p99');
  const idle = median('idleListMs');
  const failed = results.reduce((n, r) => n + r.failed, 0);
  report(
    `firehose: ${FIREHOSE.sessions} x yes, terminal_list p50 / p99`,
    `${fmt(median('p50'), 0)} / ${fmt(p99, 0)}`,
    'ms',
    `${fmt(idle, 1)} ms idle${failed ? `, ${failed} failed` : ''}`,
    fmt(p99 / idle, 0),
    'p99 <= 20 ms',
    p99 <= 20 && failed === 0,
  );
  const peak = median('peakMiB');
  report(
    'firehose: server peak RSS (VmHWM)',
    fmt(peak, 0),
    'MiB',
    `${fmt(median('idleMiB'), 0)} MiB idle`,
    fmt(peak / median('idleMiB'), 1),
    '<= 150 MiB',
    peak <= 150,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const runs = Number(process.env.BENCH_RUNS ?? 1);
  for (let i = 0; i < runs; i++) console.log(JSON.stringify(await firehoseOnce()));
}
