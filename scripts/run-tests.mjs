#!/usr/bin/env node
// Runs every compiled *.test.js under build/test with node:test, each file in a process of its own
// with a time limit: a file past its limit fails, naming itself, and every process it started is
// ended. Node 20's directory discovery would also run helpers, so the files are listed explicitly.
//
// Two files run at a time (two CPUs), except the end-to-end files in SOLO, which start busy loops
// of their own and run afterwards, alone. Every other file drives real programs too, and holds on
// a machine that is doing something else (the loaded layer proves it).
//
// Usage: node scripts/run-tests.mjs [layer ...] [name ...]   (layers: unit property integration e2e;
//        prompts: the shell and prompt files of e2e, one at a time;
//        heavy: the end-to-end files and tables too long for npm test's budget;
//        http: the tool files of HTTP_RERUN again, over `agent-tty serve --http`;
//        loaded: the integration and end-to-end layers beside two busy loops, as a CI runner's
//        neighbours load it: a test that fails there raced the machine, a bug to find and fix)
//        a name (`hopping`, `real-input`) keeps only the files of that name;
//        AGENT_TTY_TEST_REPEAT=N runs each file N times, to try a fix against a flake;
//        AGENT_TTY_TEST_SERIAL=1 runs every file one at a time;
//        AGENT_TTY_TEST_FILE_LIMIT_S sets every file's time limit in seconds.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const SOLO = new Set(['readiness.test.js']);

/**
 * The end-to-end files about shells and prompts: `.ci/run` runs them a second time as a normal
 * user whose shell profile takes a second (layer name `prompts`).
 */
const PROMPTS = [
  'command-marks-hooks.test.js',
  'early-stop.test.js',
  'early-stop-programs.test.js',
  'password-prompts.test.js',
  'passwords.test.js',
  'programs.test.js',
  'readiness.test.js',
  'real-input.test.js',
  'shell.test.js',
];

/**
 * End-to-end files that take minutes (10 000 000 lines through the transcript): `.ci/run` runs
 * them after npm test (layer name `heavy`), with every file that imports test/helpers/layers.ts,
 * whose tables of programs and repeated trials run there in full (AGENT_TTY_TEST_HEAVY=1) where
 * npm test runs one case of each.
 */
const HEAVY = ['transcript-disk.test.js'];
const hasHeavyCases = (file) => readFileSync(file, 'utf8').includes('/helpers/layers.js');

/**
 * The end-to-end files about the tools that `.ci/run` runs a second time over HTTP (layer name
 * `http`): test/helpers/server.ts then starts `agent-tty serve --http 127.0.0.1:0` with a token of
 * its own and connects the SDK's Streamable HTTP client (AGENT_TTY_TEST_TRANSPORT=http); every
 * result must be the same as over stdio. Their raw JSON-RPC parts (helpers/raw-rpc.ts) stay on
 * stdio, except reserved-keys' (raw POST bodies) and hopping's shutdown (SIGTERM and SIGHUP; stdin
 * EOF, which does not end an HTTP server, is skipped). A representative third (16 of 51), two at
 * a time, in about three minutes: starting, every kind of input, snapshots, resizing, listing,
 * closing, errors and results, recordings, faults, hostile output, the descriptors a program
 * holds. Left out:
 * - about stdio itself: jsonrpc (line framing), shutdown (stdin EOF, a broken stdout),
 *   inspector-signal, terminal-hint (a person starting the stdio server in a terminal), fuzz and
 *   pattern-budget (raw JSON-RPC lines only: they never use startServer);
 * - about `agent-tty attach` (a person, not the MCP transport): attach, attach-hostile,
 *   attach-peers, attach-size, passwords;
 * - about other commands: test-command (`agent-tty test`, no MCP client), doctor (a broken
 *   install);
 * - HTTP already: http-flood, http-security, http-tls, http-token, http-transport;
 * - files about the server's own memory, load and timing, which add nothing of the transport
 *   (guarantees, transcript and early-stop pass over HTTP too, run by hand), and HEAVY files;
 * - client-path: it starts the server under `env -i`, which clears the AGENT_TTY_TOKEN the
 *   client's token reaches the server in;
 * - for time, passing over HTTP but adding nothing of the transport: command-marks-hooks and
 *   password-prompts (the prompts layer runs them as a normal user; runuser works over HTTP),
 *   command-marks-nonce, exec-size.
 */
const HTTP_RERUN = [
  'beyond.test.js',
  'command-marks.test.js',
  'contract.test.js',
  'cross-session.test.js',
  'descriptors.test.js',
  'faults.test.js',
  'hopping.test.js',
  'hostile-probes.test.js',
  'hostile.test.js',
  'input-bytes.test.js',
  'programs.test.js',
  'real-input.test.js',
  'recordings.test.js',
  'reserved-keys.test.js',
  'shell-history.test.js',
  'shell.test.js',
];

/**
 * Each file's time limit, in seconds: several times what it takes on two quiet cores, so that a
 * loaded machine never reaches it and only a hang does. The heavy layer's files take minutes.
 */
const FILE_LIMIT_S = Number(process.env.AGENT_TTY_TEST_FILE_LIMIT_S) || 0;
const DEFAULT_LIMIT_S = 300;
const HEAVY_LIMIT_S = 1200;
/** After its limit, a file's processes get SIGTERM, then SIGKILL this much later. */
const KILL_GRACE_MS = 3000;
/**
 * After a file ends, the processes it started (servers shutting down, their sessions) get this
 * long to be gone; any still there are named, killed, and fail the file.
 */
const LEFTOVER_GRACE_MS = 5000;
/** The variable that marks every process a file starts, so the runner can find them all. */
const MARK = 'AGENT_TTY_TEST_RUN';

const LAYERS = ['unit', 'property', 'integration', 'e2e', 'prompts', 'heavy', 'http', 'loaded'];
const layers = process.argv.slice(2).filter((a) => LAYERS.includes(a));
const names = process.argv.slice(2).filter((a) => !LAYERS.includes(a));
const REPEAT = Number(process.env.AGENT_TTY_TEST_REPEAT) || 1;
const prompts = layers.includes('prompts');
const heavy = layers.includes('heavy');
const http = layers.includes('http');
const loaded = layers.includes('loaded');
const roots = (
  prompts || heavy || http
    ? ['e2e']
    : loaded
      ? ['integration', 'e2e']
      : layers.length
        ? layers
        : ['unit', 'property', 'integration', 'e2e']
).map((l) => join('build', 'test', l));

function collect(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) return collect(full);
      return entry.name.endsWith('.test.js') ? [full] : [];
    })
    .sort();
}

const chosen = (file) =>
  prompts
    ? PROMPTS.includes(basename(file))
    : heavy
      ? HEAVY.includes(basename(file)) || hasHeavyCases(file)
      : http
        ? HTTP_RERUN.includes(basename(file))
        : !HEAVY.includes(basename(file));
const named = (file) => names.length === 0 || names.includes(basename(file, '.test.js'));
const files = roots
  .flatMap(collect)
  .filter((file) => chosen(file) && named(file))
  .flatMap((file) => Array(REPEAT).fill(file));
// A file renamed or removed must not silently leave the HTTP layer.
const unknown = http ? HTTP_RERUN.filter((f) => !files.some((file) => basename(file) === f)) : [];
if (unknown.length > 0) {
  console.error(`HTTP_RERUN names files that do not exist: ${unknown.join(', ')}`);
  process.exit(1);
}
if (files.length === 0) {
  console.error('no test files found: run npm run build:test first');
  process.exit(1);
}
const serial = prompts || process.env.AGENT_TTY_TEST_SERIAL === '1';
/** In the heavy layer, the files that load the machine with busy loops or 10 000 000 lines. */
const SOLO_WHEN_HEAVY = new Set([...SOLO, ...HEAVY, 'lossless.test.js']);
const isSolo = (file) =>
  serial || (file.includes('/e2e/') && (heavy ? SOLO_WHEN_HEAVY : SOLO).has(basename(file)));
/**
 * The longest files first, so the two at a time finish together: end-to-end files start first and
 * the many short unit files fill in at the end (alphabetical order left a long file running alone).
 */
const LAYER_ORDER = ['e2e', 'integration', 'property', 'unit'];
const layerRank = (file) => LAYER_ORDER.findIndex((l) => file.includes(`/${l}/`));
const longestFirst = (a, b) => layerRank(a) - layerRank(b) || (a < b ? -1 : 1);
const groups = [
  { concurrency: 2, files: files.filter((f) => !isSolo(f)).sort(longestFirst) },
  { concurrency: 1, files: files.filter(isSolo) },
].filter((g) => g.files.length > 0);

const environment = heavy
  ? { ...process.env, AGENT_TTY_TEST_HEAVY: '1' }
  : http
    ? { ...process.env, AGENT_TTY_TEST_TRANSPORT: 'http' }
    : process.env;

/** How many lines of a failed test's report (its error, then its stack) the summary repeats. */
const DETAIL_LINES = 40;

/**
 * Reads one file's TAP output: the tests that failed (their names under their suites, and the
 * start of each report) and the counts node's reporter closes with.
 */
function readTap(text) {
  const failed = [];
  const names = [];
  const counts = {};
  /** The failed test whose YAML block is being read, and that block's closing line. */
  let reading = null;
  for (const line of text.split('\n')) {
    if (reading) {
      if (line === reading.end) reading = null;
      else if (reading.detail.length < DETAIL_LINES) {
        reading.detail.push(line.slice(reading.end.length - 3));
      }
      continue;
    }
    const count = /^# (tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$/.exec(line);
    if (count) counts[count[1]] = Number(count[2]);
    const subtest = /^( *)# Subtest: (.*)$/.exec(line);
    if (subtest) names[subtest[1].length / 4] = subtest[2];
    const notOk = /^( *)not ok \d+ - (.*?)( # .*)?$/.exec(line);
    if (notOk) {
      const depth = notOk[1].length / 4;
      const path = [...names.slice(0, depth), notOk[2]].join(' > ');
      // A suite fails when one of its tests does: name the tests only.
      if (failed.some((f) => f.name.startsWith(`${path} > `))) continue;
      const failure = { name: path, detail: [] };
      failed.push(failure);
      reading = { end: `${notOk[1]}  ...`, detail: failure.detail };
    }
  }
  return { failed, counts };
}

/** The processes (not zombies) whose environment carries MARK=`run`: all a file started. */
function marked(run) {
  const needle = `\0${MARK}=${run}\0`;
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (!`\0${readFileSync(`/proc/${entry}/environ`, 'latin1')}`.includes(needle)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'latin1').replaceAll('\0', ' ').trim();
      found.push({ pid: Number(entry), cmd: cmd.slice(0, 160) });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

const killAll = (processes, signal) => {
  for (const { pid } of processes) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile
    }
  }
};
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const canSweep = existsSync('/proc/self/environ');

/**
 * Waits up to `ms` for the processes marked `run` to be gone; returns those still there.
 */
async function whenGone(run, ms) {
  if (!canSweep) return [];
  const deadline = Date.now() + ms;
  let left = marked(run);
  while (left.length > 0 && Date.now() < deadline) {
    await pause(100);
    left = marked(run);
  }
  return left;
}

/** The files running now: their process groups and marks, to end them if the runner is stopped. */
const running = new Map();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    for (const [pid, run] of running) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
      if (canSweep) killAll(marked(run), 'SIGKILL');
    }
    process.exit(1);
  });
}

/**
 * Runs one file in a process of its own (and its own process group), within its time limit.
 * Resolves with its output, what failed, its counts, how long it took, and the processes it left.
 */
function runFile(file) {
  const run = randomUUID();
  const limitS =
    FILE_LIMIT_S || (heavy || HEAVY.includes(basename(file)) ? HEAVY_LIMIT_S : DEFAULT_LIMIT_S);
  const started = Date.now();
  return new Promise((resolve) => {
    // The file runs as a script: node:test reports it as `--test` would, one process fewer.
    const child = spawn(process.execPath, ['--test-reporter=tap', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...environment, [MARK]: run },
      detached: true,
    });
    running.set(child.pid, run);
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk) => {
      output += chunk.toString('utf8');
    });
    let timedOut = false;
    const limit = setTimeout(async () => {
      timedOut = true;
      const group = (signal) => {
        try {
          process.kill(-child.pid, signal);
        } catch {
          // gone meanwhile
        }
      };
      // SIGINT first: node:test then prints the tests that finished, so the report shows where
      // the file stopped (the test after the last one reported).
      killAll([{ pid: child.pid }], 'SIGINT');
      await pause(1000);
      group('SIGTERM');
      if (canSweep) killAll(marked(run), 'SIGTERM');
      await pause(KILL_GRACE_MS);
      group('SIGKILL');
      if (canSweep) killAll(marked(run), 'SIGKILL');
    }, limitS * 1000);
    child.on('close', async (code, signal) => {
      clearTimeout(limit);
      running.delete(child.pid);
      const ms = Date.now() - started;
      const left = await whenGone(run, timedOut ? 0 : LEFTOVER_GRACE_MS);
      killAll(left, 'SIGKILL');
      const { failed, counts } = readTap(output);
      if (timedOut) {
        failed.push({
          name: `${file}: timed out after ${limitS} s`,
          detail: ['its processes were ended; above, its output up to the test that hung'],
        });
      }
      // Nothing a test starts may outlive it: a file that left processes fails.
      if (left.length > 0 && !timedOut) {
        failed.push({
          name: `${file}: left ${left.length} processes running ${LEFTOVER_GRACE_MS / 1000} s after it ended`,
          detail: left.map(({ pid, cmd }) => `${pid} ${cmd}`),
        });
      }
      const status = timedOut || left.length > 0 ? 1 : (code ?? (signal ? 1 : 0));
      if (status !== 0 && failed.length === 0) {
        failed.push({ name: `${file}: exited with ${code ?? signal}`, detail: [] });
      }
      resolve({ file, output, failed, counts, ms, left, status });
    });
  });
}

/** Runs a group's files, `concurrency` at a time, printing each file's output whole when it ends. */
async function runGroup(concurrency, group) {
  const queue = [...group];
  const results = [];
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const result = await runFile(file);
      process.stdout.write(result.output.endsWith('\n') ? result.output : `${result.output}\n`);
      const verdict = result.status === 0 ? 'ok' : 'FAILED';
      console.log(`# file ${file}: ${verdict} in ${(result.ms / 1000).toFixed(1)} s`);
      for (const { pid, cmd } of result.left) {
        console.log(`# file ${file} left process ${pid} (${cmd}): killed`);
      }
      results.push(result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, group.length) }, worker));
  return results;
}

/** The loaded layer's busy loops: one per core, at the tests' own priority. */
const BUSY_LOOPS = 2;
const busy = loaded
  ? Array.from({ length: BUSY_LOOPS }, () =>
      spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }),
    )
  : [];
const endBusy = () => {
  for (const loop of busy) loop.kill('SIGKILL');
};
process.on('exit', endBusy);
if (loaded) console.log(`# beside ${BUSY_LOOPS} busy loops`);

const suiteStarted = Date.now();
const results = [];
for (const { concurrency, files: group } of groups) {
  const groupStarted = Date.now();
  results.push(...(await runGroup(concurrency, group)));
  const s = ((Date.now() - groupStarted) / 1000).toFixed(1);
  console.log(`# ${group.length} files, ${concurrency} at a time: ${s} s`);
}

const total = (key) => results.reduce((n, r) => n + (r.counts[key] ?? 0), 0);
const failed = results.flatMap((r) => r.failed);
const leftBehind = results.filter((r) => r.left.length > 0);
console.log('\n# the slowest files:');
for (const r of [...results].sort((a, b) => b.ms - a.ms).slice(0, 12)) {
  console.log(`#   ${(r.ms / 1000).toFixed(1).padStart(6)} s  ${r.file}`);
}
if (leftBehind.length > 0) {
  console.log(`\n# ${leftBehind.length} files left processes behind (killed; each file failed):`);
  for (const r of leftBehind) console.log(`#   ${r.file}: ${r.left.map((p) => p.pid).join(', ')}`);
}
if (failed.length > 0) {
  console.log(`\n# ${failed.length} failed:`);
  for (const { name } of failed) console.log(`#   ${name}`);
  for (const { name, detail } of failed) {
    console.log(`\n# ${name}:`);
    for (const line of detail) console.log(`#   ${line}`);
  }
}
const passed = total('pass');
const failedCount = total('fail') + results.filter((r) => r.status !== 0 && !r.counts.fail).length;
console.log(`\n# ${results.length} files in ${((Date.now() - suiteStarted) / 1000).toFixed(1)} s`);
console.log(`# tests ${total('tests')}`);
console.log(`# pass ${passed}`);
console.log(`# fail ${failedCount}`);
console.log(`# skipped ${total('skipped')}`);
console.log(`${passed} passed, ${failedCount} failed, ${total('skipped')} skipped`);
process.exit(results.some((r) => r.status !== 0) ? 1 : 0);
