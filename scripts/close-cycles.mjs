#!/usr/bin/env node
// Memory of a server that runs for days: start and close an interactive shell N times through
// the built server, and compare the server's RSS after the warm-up (the first 50 cycles start the
// pattern workers and fill V8's caches) with its RSS at the end. A session the server kept after
// its close (a listener on a long-lived signal, a map entry) shows as growth per cycle.
//
// Usage: node scripts/close-cycles.mjs [cycles=1000] [cols=500] [rows=200]   (after npm run build)
// BENCH_SERVER=/path/to/dist/main.js measures another build.
import { connect } from './bench/client.mjs';

const CYCLES = Number(process.argv[2] ?? 1000);
const COLS = Number(process.argv[3] ?? 500);
const ROWS = Number(process.argv[4] ?? 200);
const WARM_UP = 50;

const client = await connect();
const sample = () => client.rssMiB();
let baseline;
const began = performance.now();
for (let cycle = 1; cycle <= CYCLES; cycle++) {
  const started = await client.call('terminal_start', {
    shell: '/bin/bash',
    login: false,
    cols: COLS,
    rows: ROWS,
    settleMs: 0,
  });
  await client.call('terminal_close', { sessionId: started.structuredContent.sessionId });
  if (cycle === WARM_UP) baseline = sample();
  if (cycle % 100 === 0) console.log(`  after ${cycle}: ${sample().toFixed(1)} MiB`);
}
// Let V8 collect what it may before the last reading.
await new Promise((resolve) => setTimeout(resolve, 2000));
const end = sample();
const seconds = (performance.now() - began) / 1000;
await client.close();
console.log(
  `${CYCLES} start+close cycles of a ${COLS}x${ROWS} bash in ${seconds.toFixed(0)} s: ` +
    `RSS ${baseline.toFixed(1)} MiB after ${WARM_UP} -> ${end.toFixed(1)} MiB ` +
    `(${(end / baseline).toFixed(2)}x; ${(((end - baseline) * 1024) / (CYCLES - WARM_UP)).toFixed(1)} KiB a cycle)`,
);
