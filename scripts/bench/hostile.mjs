// Hostile loads for the benchmark: what a misbehaving program or client costs the server (peak
// RSS, CPU as % of one core) and how responsive it stays meanwhile (terminal_list latency). Each
// load runs in a fresh server, is bounded by deadlines, and ends by killing that server. A call
// that fails (a tool error code such as INPUT_BACKLOG, a JSON-RPC error, a timeout) is counted
// and reported, never thrown.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { combiningThenOsc, fillLines, queryFlood } from './hostile-programs.mjs';
import { parseOnly } from './limits.mjs';
import { memoryMiB, watchProcess } from './proc.mjs';
import { startRawClient } from './raw-client.mjs';

const OUTPUT = { lines: 500, cells: 120, marks: 100, oscBytes: 20_000_000, deadlineMs: 30_000 };
const FLOOD = { floodMs: 4000, quietMs: 1000, readCapMs: 8000 };
const STALL = {
  requests: 300,
  cols: 500,
  rows: 200,
  lines: 50,
  stallCapMs: 12_000,
  deadlineMs: 30_000,
};
const TYPE_AHEAD = { bytes: 1024 * 1024, watchMs: 3000 };

/** Provisional targets: a hostile program or client should cost about what eight busy sessions
 * do, leave terminal_list answering within a quiet interval, and leave no CPU burning after it. */
const MAX_RSS_MIB = 256;
const MAX_LIST_P99_MS = 250;
const MAX_IDLE_CPU_PERCENT = 10;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const percentile = (values, p) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
};

/** Runs the four hostile loads, one fresh server each; rows go through `report`. */
export async function runHostileLoads(report, fmt) {
  mkdirSync('.bench', { recursive: true });
  const row = rowWriter(report, fmt);
  console.log('');
  for (const load of [hostileOutput, queryFloodLoad, stalledReader, typeAhead]) {
    const client = await startRawClient();
    try {
      await load(client, row, fmt);
    } catch (error) {
      report(`${load.name} did not finish`, 'error', '', String(error.message), '', '', false);
    } finally {
      await client.kill();
    }
  }
}

/** The rows every load shares: peak RSS, CPU, terminal_list latency beside the idle figures. */
function rowWriter(report, fmt) {
  return {
    report,
    memory: (stats, idle) =>
      report(
        '  server peak RSS',
        fmt(stats.peakMiB, 0),
        'MiB',
        `${fmt(idle.rssMiB, 0)} MiB idle`,
        fmt(stats.peakMiB / idle.rssMiB, 1),
        `< ${MAX_RSS_MIB} MiB`,
        stats.peakMiB < MAX_RSS_MIB,
      ),
    cpu: (label, stats, target) =>
      report(
        `  server CPU ${label}`,
        fmt(stats.cpuPercent, 0),
        '% core',
        `over ${fmt(stats.elapsedMs / 1000)} s`,
        '',
        target === undefined ? '' : `< ${target} %`,
        target === undefined ? undefined : stats.cpuPercent < target,
      ),
    latency: (latency, idle) => {
      const lost = latency.timedOut + latency.errors;
      report(
        '  terminal_list p50 / p99 meanwhile',
        `${fmt(latency.p50, 0)} / ${fmt(latency.p99, 0)}`,
        'ms',
        `${fmt(idle.listMs, 1)} ms idle, n=${latency.count}${lost ? `, ${lost} failed` : ''}`,
        fmt(latency.p99 / idle.listMs, 0),
        `p99 < ${MAX_LIST_P99_MS} ms`,
        latency.p99 < MAX_LIST_P99_MS && lost === 0,
      );
    },
  };
}

/** The server at rest: RSS and the median terminal_list round trip. */
async function idleFigures(client) {
  const times = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    await client.call('terminal_list', {}, 5000);
    times.push(performance.now() - t);
  }
  return { rssMiB: memoryMiB(client.pid).rss, listMs: percentile(times, 0.5) };
}

/** terminal_list in a loop until stop(); a call that times out counts at its timeout. */
function probeLatency(client, gapMs = 20, timeoutMs = 15_000) {
  const times = [];
  let timedOut = 0;
  let errors = 0;
  let running = true;
  const loop = (async () => {
    while (running && !client.hasExited()) {
      const t = performance.now();
      const outcome = await client.call('terminal_list', {}, timeoutMs);
      times.push(performance.now() - t);
      if (outcome.timedOut) timedOut++;
      else if (outcome.error) errors++;
      if (running) await sleep(gapMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return {
        p50: percentile(times, 0.5),
        p99: percentile(times, 0.99),
        count: times.length,
        timedOut,
        errors,
      };
    },
  };
}

/** Starts `program` (python3 source) in a terminal; the session id or the failure. */
async function startProgram(client, name, program, size) {
  const path = resolve('.bench', `${name}.py`);
  writeFileSync(path, program);
  const started = await client.call(
    'terminal_start',
    { command: `python3 ${path}`, login: false, settleMs: 0, ...size },
    30_000,
  );
  if (!started.result) throw new Error(`terminal_start: ${started.error ?? 'timed out'}`);
  return started.result.structuredContent.sessionId;
}

/** 1. Lines full of combining marks, then an OSC string that never ends. */
async function hostileOutput(client, row, fmt) {
  const { lines, cells, marks, oscBytes, deadlineMs } = OUTPUT;
  const lineBytes = cells * (1 + 2 * marks) + 2;
  const totalBytes = lines * lineBytes + 4 + oscBytes;
  // This machine's limit: @xterm/headless parsing a tenth of the same stream, alone.
  const line = Buffer.from(`${`a${'\u0301'.repeat(marks)}`.repeat(cells)}\r\n`);
  const sample = [
    ...Array.from({ length: Math.ceil(lines / 10) }, () => line),
    Buffer.from(`\x1b]0;${'x'.repeat(oscBytes / 10)}`),
  ];
  const sampleBytes = sample.reduce((n, b) => n + b.length, 0);
  const parseMs = await parseOnly(sample, cells, 40);
  const idle = await idleFigures(client);
  const watch = watchProcess(client.pid);
  const probe = probeLatency(client);
  const started = performance.now();
  const id = await startProgram(client, 'hostile-output', combiningThenOsc(OUTPUT), {
    cols: cells,
    rows: 40,
  });
  let status = 'running';
  let failures = 0;
  while (status !== 'exited' && performance.now() - started < deadlineMs) {
    const left = deadlineMs - (performance.now() - started);
    const snap = await client.call('terminal_snapshot', { sessionId: id, settleMs: 0 }, left);
    if (snap.result) status = snap.result.structuredContent.snapshot.status;
    else failures++;
    if (client.hasExited()) throw new Error('the server exited');
    if (status !== 'exited') await sleep(20);
  }
  const ms = performance.now() - started;
  const stats = watch.stop();
  const latency = await probe.stop();
  const mbps = (bytes, t) => fmt(bytes / 1e6 / (t / 1000));
  row.report(
    `hostile output ${fmt(totalBytes / 1e6, 0)} MB to exited snapshot`,
    status === 'exited' ? mbps(totalBytes, ms) : `> ${fmt(deadlineMs / 1000, 0)} s`,
    status === 'exited' ? 'MB/s' : '',
    `${mbps(sampleBytes, parseMs)} MB/s parse alone${failures ? `, ${failures} failed` : ''}`,
    status === 'exited' ? fmt(totalBytes / ms / (sampleBytes / parseMs), 2) : '',
    '>= 0.50',
    status === 'exited' && totalBytes / ms / (sampleBytes / parseMs) >= 0.5,
  );
  row.memory(stats, idle);
  row.cpu('during it', stats);
  row.latency(latency, idle);
}

/** 2. Cursor-position queries as fast as the terminal takes them, from a program that never reads. */
async function queryFloodLoad(client, row, fmt) {
  const resultPath = resolve('.bench', 'query-flood.json');
  rmSync(resultPath, { force: true });
  const idle = await idleFigures(client);
  const watch = watchProcess(client.pid);
  const probe = probeLatency(client);
  const started = performance.now();
  await startProgram(client, 'query-flood', queryFlood({ ...FLOOD, resultPath }), {
    cols: 80,
    rows: 24,
  });
  await sleep(Math.max(0, FLOOD.floodMs - (performance.now() - started)));
  const during = watch.stop();
  const after = watchProcess(client.pid);
  const deadline = performance.now() + FLOOD.readCapMs + 5000;
  let outcome;
  while (!outcome && performance.now() < deadline) {
    try {
      outcome = JSON.parse(readFileSync(resultPath, 'utf8'));
    } catch {
      await sleep(50);
    }
  }
  const afterStats = after.stop();
  const latency = await probe.stop();
  if (!outcome) {
    row.report('query flood: no result from the program', 'none', '', '', '', '', false);
  } else {
    const lastMs = outcome.lastReplyAfterMs ?? 0;
    row.report(
      `query flood ${fmt(FLOOD.floodMs / 1000, 0)} s: replies after it stops`,
      outcome.capped ? `> ${fmt(FLOOD.readCapMs, 0)}` : fmt(lastMs, 0),
      'ms',
      `${outcome.replies} replies to ${outcome.queries} queries`,
      fmt(outcome.replies / Math.max(1, outcome.queries), 3),
      '< 1000 ms',
      !outcome.capped && lastMs < 1000,
    );
  }
  row.memory({ ...during, peakMiB: Math.max(during.peakMiB, afterStats.peakMiB) }, idle);
  row.cpu('during the flood', during);
  row.cpu('after it stops', afterStats, MAX_IDLE_CPU_PERCENT);
  row.latency(latency, idle);
}

/** 3. A client that stops reading while it asks for large snapshots, then reads again. */
async function stalledReader(client, row, fmt) {
  const { requests, cols, rows, lines, stallCapMs, deadlineMs } = STALL;
  const idle = await idleFigures(client);
  const id = await startProgram(client, 'fill', fillLines({ lines: lines + rows, cols }), {
    cols,
    rows,
  });
  // Wait for the output to be on the screen: the last line number is visible.
  const lastLine = String(lines + rows - 1).padStart(6, '0');
  for (let i = 0; i < 100; i++) {
    const snap = await client.call('terminal_snapshot', { sessionId: id, settleMs: 100 }, 10_000);
    if (snap.result?.structuredContent.snapshot.screen.some((l) => l.startsWith(lastLine))) break;
  }
  const one = await client.call('terminal_snapshot', { sessionId: id, scrollbackLines: 2000 });
  const replyBytes = one.result ? Buffer.byteLength(JSON.stringify(one.result)) : Number.NaN;
  const watch = watchProcess(client.pid);
  client.pauseReading();
  const sentAt = performance.now();
  const pending = Array.from({ length: requests }, () =>
    client.call(
      'terminal_snapshot',
      { sessionId: id, settleMs: 0, scrollbackLines: 2000 },
      deadlineMs,
    ),
  );
  // Stay stalled until the server has gone idle (under 4 % of a core for two 250 ms samples in a
  // row: it answered all it read, or stopped reading), at most stallCapMs.
  let cpuBefore = watch.cpuSoFar();
  let idleSamples = 0;
  while (performance.now() - sentAt < stallCapMs && idleSamples < 2) {
    await sleep(250);
    const cpu = watch.cpuSoFar();
    idleSamples = cpu - cpuBefore < 10 ? idleSamples + 1 : 0;
    cpuBefore = cpu;
  }
  const stalledMs = performance.now() - sentAt;
  client.resumeReading();
  const resumedAt = performance.now();
  const outcomes = await Promise.all(pending);
  const doneAt = performance.now();
  const stats = watch.stop();
  const ok = outcomes.filter((o) => o.result).length;
  const timedOut = outcomes.filter((o) => o.timedOut).length;
  const errors = new Map();
  for (const o of outcomes) if (o.error) errors.set(o.error, (errors.get(o.error) ?? 0) + 1);
  const errorText = [...errors].map(([code, n]) => `${n} ${code}`).join(', ');
  row.report(
    `stalled reader: ${requests} snapshots ${cols}x${rows}+${lines}`,
    fmt((doneAt - resumedAt) / 1000),
    's',
    `${ok} ok${errorText ? `, ${errorText}` : ''}${timedOut ? `, ${timedOut} timed out` : ''}`,
    '',
    'all answered',
    timedOut === 0,
  );
  row.report(
    '  stalled for / each reply',
    `${fmt(stalledMs / 1000)} s`,
    '',
    `${fmt(replyBytes / 1024, 0)} KiB per reply`,
    '',
    '',
    undefined,
  );
  row.memory(stats, idle);
  row.cpu('over the load', stats);
}

/** 4. A MiB of type-ahead for a program that never reads it. */
async function typeAhead(client, row, fmt) {
  const { bytes, watchMs } = TYPE_AHEAD;
  const idle = await idleFigures(client);
  const started = await client.call(
    'terminal_start',
    { command: 'stty raw -echo; sleep 1000', shell: '/bin/sh', login: false, settleMs: 200 },
    30_000,
  );
  if (!started.result) throw new Error(`terminal_start: ${started.error ?? 'timed out'}`);
  const sessionId = started.result.structuredContent.sessionId;
  const t = performance.now();
  const input = await client.call(
    'terminal_input',
    { sessionId, actions: [{ type: 'text', text: 'y'.repeat(bytes) }] },
    30_000,
  );
  const callMs = performance.now() - t;
  const outcome = input.result ? 'ok' : (input.error ?? 'timed out');
  const watch = watchProcess(client.pid);
  const probe = probeLatency(client);
  await sleep(watchMs);
  const stats = watch.stop();
  const latency = await probe.stop();
  row.report(
    `type-ahead ${fmt(bytes / 1048576, 0)} MiB to a non-reader: call`,
    fmt(callMs, 0),
    'ms',
    `answered ${outcome}`,
    '',
    '',
    undefined,
  );
  row.cpu(`${fmt(watchMs / 1000, 0)} s after the call`, stats, MAX_IDLE_CPU_PERCENT);
  row.memory(stats, idle);
  row.latency(latency, idle);
}
