#!/usr/bin/env node
// Runs every compiled *.test.js under build/test with node:test. Node 20's directory discovery
// would also run helpers, so the files are listed explicitly.
//
// Two files run at a time (two CPUs), except the end-to-end files in SOLO: they load the machine
// on purpose (busy loops, floods, 200-run stress) or measure it (memory bounds, exit and early-stop
// timing), so they run afterwards, one at a time, with nothing else of the suite beside them.
// The others drive real programs too, and must hold on a machine that is doing something else.
//
// Usage: node scripts/run-tests.mjs [layer ...]   (layers: unit property integration e2e;
//        prompts: the shell and prompt files of e2e, one at a time;
//        heavy: the end-to-end files too long for npm test's budget, one at a time;
//        http: the tool files of HTTP_RERUN again, over `agent-tty serve --http`)
//        AGENT_TTY_TEST_SERIAL=1 runs every file one at a time.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';

const SOLO = new Set([
  'close-hangup.test.js',
  'early-stop.test.js',
  'early-stop-programs.test.js',
  'guarantees.test.js',
  'http-flood.test.js',
  'load.test.js',
  'lossless.test.js',
  'output-memory.test.js',
  'readiness.test.js',
  'screen-memory.test.js',
  'torture.test.js',
  'transcript.test.js',
]);

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
 * them after npm test (layer name `heavy`), with files that then try every case instead of a
 * representative few (AGENT_TTY_TEST_HEAVY=1: shutdown on every terminating signal, 200 runs of
 * each lossless shape instead of 25, every fuzz run instead of half).
 */
const HEAVY = ['transcript-disk.test.js'];
const WIDER_WHEN_HEAVY = ['shutdown.test.js', 'lossless.test.js', 'fuzz.test.js'];

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
 * - SOLO and HEAVY files: they load or measure the machine and must run alone, minutes in all
 *   (guarantees, transcript and early-stop pass over HTTP too, run by hand);
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

const layers = process.argv.slice(2);
const prompts = layers.includes('prompts');
const heavy = layers.includes('heavy');
const http = layers.includes('http');
const roots = (
  prompts || heavy || http
    ? ['e2e']
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
      ? HEAVY.includes(basename(file)) || WIDER_WHEN_HEAVY.includes(basename(file))
      : http
        ? HTTP_RERUN.includes(basename(file))
        : !HEAVY.includes(basename(file));
const files = roots.flatMap(collect).filter(chosen);
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
const serial = prompts || heavy || process.env.AGENT_TTY_TEST_SERIAL === '1';
const isSolo = (file) => serial || (file.includes('/e2e/') && SOLO.has(basename(file)));
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

/** How many lines of a failed test's report (its error, then its stack) the summary repeats. */
const DETAIL_LINES = 40;

/**
 * Runs one group, passing its TAP output through, and returns its exit status with the tests
 * that failed (their names under their suites, and the start of each report), so the end of a long
 * log, which may be all a reader is shown, still says which and why.
 */
function runGroup(concurrency, group) {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--test', `--test-concurrency=${concurrency}`, ...group],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: heavy
          ? { ...process.env, AGENT_TTY_TEST_HEAVY: '1' }
          : http
            ? { ...process.env, AGENT_TTY_TEST_TRANSPORT: 'http' }
            : process.env,
      },
    );
    const failed = [];
    const names = [];
    let rest = '';
    /** The failed test whose YAML block is being read, and that block's closing line. */
    let reading = null;
    const scan = (line) => {
      if (reading) {
        if (line === reading.end) reading = null;
        else if (reading.detail.length < DETAIL_LINES) {
          reading.detail.push(line.slice(reading.end.length - 3));
        }
        return;
      }
      const subtest = /^( *)# Subtest: (.*)$/.exec(line);
      if (subtest) names[subtest[1].length / 4] = subtest[2];
      const notOk = /^( *)not ok \d+ - (.*?)( # .*)?$/.exec(line);
      if (notOk) {
        const depth = notOk[1].length / 4;
        const path = [...names.slice(0, depth), notOk[2]].join(' > ');
        // A suite fails when one of its tests does: name the tests only.
        if (failed.some((f) => f.name.startsWith(`${path} > `))) return;
        const failure = { name: path, detail: [] };
        failed.push(failure);
        reading = { end: `${notOk[1]}  ...`, detail: failure.detail };
      }
    };
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) scan(line);
    });
    child.on('close', (code, signal) => {
      scan(rest);
      resolve({ status: code ?? (signal ? 1 : 0), failed });
    });
  });
}

let status = 0;
const failed = [];
for (const { concurrency, files: group } of groups) {
  const result = await runGroup(concurrency, group);
  if (result.status !== 0) status = result.status;
  failed.push(...result.failed);
}
if (failed.length > 0) {
  console.log(`\n# ${failed.length} failed:`);
  for (const { name } of failed) console.log(`#   ${name}`);
  for (const { name, detail } of failed) {
    console.log(`\n# ${name}:`);
    for (const line of detail) console.log(`#   ${line}`);
  }
}
process.exit(status);
