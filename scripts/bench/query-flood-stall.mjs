// How long a cursor-position query flood holds the server's one thread (issue 35, S10):
// terminal_list p99 and max beside one query-flood session, on a quiet machine and beside two busy
// loops (`sh -c 'while :; do :; done'` x2, killed afterwards), each as a ratio to terminal_list
// beside an idle session in the same server. Run after `npm run build`:
//   node scripts/bench/query-flood-stall.mjs            (BENCH_SERVER=<main.js> for another build)
// Prints one JSON object; exit code 0 whatever the figures.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { startRawClient } from './raw-client.mjs';

const PHASE_MS = Number(process.env.FLOOD_PHASE_MS ?? 6000);
const GAP_MS = 10;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
};

/** Raw mode, ESC [ 6 n as fast as the terminal takes it, never reading: for as long as it runs. */
const FLOOD = `
import os, select, tty
tty.setraw(0)
os.set_blocking(1, False)
chunk = b"\\x1b[6n" * 1024
while True:
    try:
        os.write(1, chunk)
    except BlockingIOError:
        select.select([], [1], [], 0.02)
`;

async function listTimes(client, ms) {
  const times = [];
  let failed = 0;
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const t = performance.now();
    const outcome = await client.call('terminal_list', {}, 20_000);
    times.push(performance.now() - t);
    if (!outcome.result) failed++;
    await sleep(GAP_MS);
  }
  const r = (v) => Math.round(v * 10) / 10;
  return {
    n: times.length,
    failed,
    p50: r(percentile(times, 0.5)),
    p99: r(percentile(times, 0.99)),
    max: r(Math.max(...times)),
  };
}

function busyLoops(count) {
  return Array.from({ length: count }, () =>
    spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }),
  );
}

async function start(client, command) {
  const started = await client.call(
    'terminal_start',
    { command, login: false, settleMs: 0, cols: 80, rows: 24 },
    30_000,
  );
  if (!started.result) throw new Error(`terminal_start: ${JSON.stringify(started)}`);
  return started.result.structuredContent.sessionId;
}

async function main() {
  mkdirSync('.bench', { recursive: true });
  const floodPath = resolve('.bench', 'query-flood-stall.py');
  writeFileSync(floodPath, FLOOD);
  const client = await startRawClient({
    env: process.env.SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.SERVER_NODE_OPTIONS } : {},
  });
  const loops = [];
  try {
    await start(client, 'sleep 600');
    await listTimes(client, 500); // warm-up
    const idle = await listTimes(client, PHASE_MS);
    await start(client, `python3 ${floodPath}`);
    await sleep(300);
    const quiet = await listTimes(client, PHASE_MS);
    loops.push(...busyLoops(2));
    await sleep(300);
    const loaded = await listTimes(client, PHASE_MS);
    const ratio = (phase) => ({
      p99: Math.round((phase.p99 / idle.p99) * 10) / 10,
      max: Math.round((phase.max / idle.max) * 10) / 10,
    });
    console.log(
      JSON.stringify(
        {
          server: process.env.BENCH_SERVER ?? 'dist/main.js',
          phaseMs: PHASE_MS,
          idle,
          floodQuiet: { ...quiet, ratioToIdle: ratio(quiet) },
          floodBesideTwoBusyLoops: { ...loaded, ratioToIdle: ratio(loaded) },
        },
        null,
        2,
      ),
    );
  } finally {
    for (const loop of loops) loop.kill('SIGKILL');
    await client.kill();
  }
}

await main();
