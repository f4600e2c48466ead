#!/usr/bin/env node
// npm run bench: agent-tty's speed and size figures beside this machine's own limits, measured in
// the same run, with ratios so that results compare across machines. Each figure is the median
// of several runs. See README.md (Performance) for what each line means.
//
// Usage: node scripts/bench.mjs [all | normal | hostile | http] (after npm run build && npm run build:test;
// `npm run bench` builds and runs all). `hostile` runs only the hostile loads (about a minute):
// a flood of combining marks and an endless OSC string, a flood of cursor-position queries, a
// client that stops reading its replies, and a MiB of type-ahead for a program that never reads;
// each reports the server's peak RSS, CPU and terminal_list latency (scripts/bench/hostile.mjs).
// `http` runs only the calls over MCP Streamable HTTP beside stdio, and during a flood of wrong
// tokens (scripts/bench/http.mjs).
// BENCH_SERVER=/path/to/dist/main.js runs another build; BENCH_RUNS sets the runs per figure.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { reportAttach } from './bench/attach.mjs';
import { connect, nodeFloorOnce, SERVER, startupOnce } from './bench/client.mjs';
import { reportEarlyStop } from './bench/early-stop.mjs';
import { reportFirehose } from './bench/firehose.mjs';
import { reportFirstScreen } from './bench/first-screen.mjs';
import { SEQ_COUNT, seqCommand, styledFrames, styledScreenCommand } from './bench/fixtures.mjs';
import { runHostileLoads } from './bench/hostile.mjs';
import { reportHttp } from './bench/http.mjs';
import { parseOnly, runPty } from './bench/limits.mjs';
import { reportResultChannels } from './bench/result-channels.mjs';
import { reportToolList } from './bench/tool-list.mjs';
import { reportTranscript } from './bench/transcript.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PART = process.argv[2] ?? 'all';
if (!['all', 'normal', 'hostile', 'http'].includes(PART))
  throw new Error(`unknown part ${PART}: use all, normal, hostile or http`);
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const rows = [];
const report = (figure, value, unit, reference, ratio, target, pass) => {
  rows.push({ figure, value, unit, reference, ratio, target, pass });
  const mark = pass === undefined ? ' ' : pass ? '✓' : '✗';
  console.log(
    `${mark} ${figure.padEnd(44)} ${`${value} ${unit}`.padEnd(16)} ${reference.padEnd(34)} ${ratio.padEnd(10)} ${target}`,
  );
};
const fmt = (n, digits = 1) => n.toFixed(digits);
let client;
/** terminal_start, then snapshots until the program has exited; ms from the start call. */
async function runToExit(args) {
  const started = performance.now();
  let result = await client.call('terminal_start', { settleTimeoutMs: 60_000, ...args });
  const sessionId = result.structuredContent.sessionId;
  while (result.structuredContent.snapshot.status !== 'exited') {
    result = await client.call('terminal_snapshot', { sessionId, settleMs: 0 });
  }
  const ms = performance.now() - started;
  await client.call('terminal_close', { sessionId });
  return { ms, snapshot: result.structuredContent.snapshot };
}
async function repeat(n, fn) {
  const values = [];
  for (let i = 0; i < n; i++) values.push(await fn(i));
  return values;
}

console.log(
  `agent-tty bench: node ${process.version}, ${process.platform}/${process.arch}, ${RUNS} runs per figure\n`,
);
console.log(
  `  ${'figure'.padEnd(44)} ${'agent-tty'.padEnd(16)} ${'this machine'.padEnd(34)} ${'ratio'.padEnd(10)} target`,
);

if (PART === 'http') {
  mkdirSync('.bench', { recursive: true });
  writeFileSync('.bench/styled.bin', styledFrames(200, 50, 40));
  const python = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], {
    encoding: 'utf8',
  }).trim();
  await reportHttp(report, fmt, connect, python, RUNS);
} else {
  if (PART !== 'hostile') await normalLoads();
  if (PART !== 'normal') await runHostileLoads(report, fmt);
}

const failed = rows.filter((r) => r.pass === false);
console.log(`\n${rows.filter((r) => r.pass).length} targets met, ${failed.length} missed`);

/** The figures under normal loads, each beside this machine's limit. */
async function normalLoads() {
  // 1. Throughput: seq 1 2000000 from start to an exited snapshot showing its last line.
  client = await connect();
  const raw = await repeat(RUNS, () => runPty(seqCommand));
  const seqBytes = median(raw.map((r) => r.bytes));
  const rawMs = median(raw.map((r) => r.ms));
  const parseMs = median(await repeat(RUNS, () => parseOnly(raw[0].chunks)));
  const liveMs = median(
    (await repeat(RUNS, () => runPty(seqCommand, { parse: true }))).map((r) => r.ms),
  );
  const agentSeq = await repeat(RUNS, async () => {
    const { ms, snapshot } = await runToExit({
      command: seqCommand,
      shell: '/bin/sh',
      login: false,
      cols: 80,
      rows: 24,
    });
    const last = snapshot.screen.filter((l) => l !== '').at(-1);
    if (last !== String(SEQ_COUNT)) throw new Error(`seq run incomplete: ${last}`);
    return ms;
  });
  const agentSeqMs = median(agentSeq);
  const mbps = (ms) => fmt(seqBytes / 1e6 / (ms / 1000));
  console.log('');
  report('raw PTY read (seq, MB/s)', '', '', `${mbps(rawMs)} MB/s`, '', 'machine limit');
  report(
    '@xterm/headless parse alone (MB/s)',
    '',
    '',
    `${mbps(parseMs)} MB/s`,
    '',
    'machine limit',
  );
  report(
    'PTY into @xterm/headless live (MB/s)',
    '',
    '',
    `${mbps(liveMs)} MB/s`,
    '',
    'machine limit',
  );
  report(
    `seq 1 ${SEQ_COUNT} to exited snapshot`,
    mbps(agentSeqMs),
    'MB/s',
    `${mbps(liveMs)} MB/s live limit`,
    fmt(liveMs / agentSeqMs, 2),
    '>= 0.92',
    liveMs / agentSeqMs >= 0.92,
  );

  // 2. Styled full-screen repaints, 200x50, a different colour on every cell.
  const FRAMES = 40;
  const styled = Buffer.from(styledFrames(200, 50, FRAMES));
  const styledBytes = styled.length;
  mkdirSync('.bench', { recursive: true });
  writeFileSync('.bench/styled.bin', styled);
  const styledChunks = [];
  for (let i = 0; i < styledBytes; i += 65536) styledChunks.push(styled.subarray(i, i + 65536));
  const styledParseMs = median(await repeat(RUNS, () => parseOnly(styledChunks, 200, 50)));
  const agentStyled = median(
    await repeat(RUNS, async () => {
      const { ms } = await runToExit({
        command: 'cat .bench/styled.bin',
        shell: '/bin/sh',
        login: false,
        cols: 200,
        rows: 50,
      });
      return ms;
    }),
  );
  const styledMbps = (ms) => fmt(styledBytes / 1e6 / (ms / 1000));
  report(
    `styled 200x50 repaints (${fmt(styledBytes / 1e6)} MB)`,
    styledMbps(agentStyled),
    'MB/s',
    `${styledMbps(styledParseMs)} MB/s parse alone`,
    fmt(styledParseMs / agentStyled, 2),
    '>= 0.50',
    styledParseMs / agentStyled >= 0.5,
  );

  // 3. Step latency: python3 REPL, `i+1` Enter, until the answer is on the screen.
  const python = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], {
    encoding: 'utf8',
  }).trim();
  const repl = await client.call('terminal_start', {
    command: python,
    login: false,
    cols: 80,
    rows: 24,
    settleMs: 500,
  });
  const replId = repl.structuredContent.sessionId;
  const steps = await repeat(Math.max(RUNS * 4, 20), async (i) => {
    const started = performance.now();
    const result = await client.call('terminal_input', {
      sessionId: replId,
      actions: [
        { type: 'text', text: `${i}+1` },
        { type: 'key', key: 'Enter' },
      ],
    });
    const ms = performance.now() - started;
    if (!result.structuredContent.snapshot.screen.includes(String(i + 1)))
      throw new Error(`step ${i}: answer missing`);
    return ms;
  });
  await client.call('terminal_close', { sessionId: replId });
  const stepMedian = median(steps);
  const stepMax = Math.max(...steps);
  report(
    'python3 step 1+1 Enter (median)',
    fmt(stepMedian),
    'ms',
    '250 ms quiet interval (seed)',
    fmt(stepMedian / 250, 2),
    '< 0.20',
    stepMedian < 50,
  );
  report(
    'python3 step 1+1 Enter (slowest)',
    fmt(stepMax),
    'ms',
    `of ${steps.length} steps`,
    fmt(stepMax / 250, 2),
    '< 50 ms',
    stepMax < 50,
  );

  // 3b. A wait at an unexpected prompt (npm init's type:) ends early, not at its timeout.
  await reportEarlyStop(report, fmt, client, RUNS);
  await reportAttach(report, fmt, connect, seqCommand, RUNS);
  await reportFirstScreen(report, fmt, connect, Math.max(RUNS * 2, 10));

  // 4. Close: a program that exits on hangup.
  const closes = await repeat(RUNS, async () => {
    const started = await client.call('terminal_start', {
      command: `${python} -c 'import time; time.sleep(600)'`,
      login: false,
      settleMs: 100,
    });
    const t = performance.now();
    await client.call('terminal_close', { sessionId: started.structuredContent.sessionId });
    return performance.now() - t;
  });
  report(
    'close, program exits on hangup',
    fmt(median(closes)),
    'ms',
    '500 ms fixed close (best peer)',
    fmt(median(closes) / 500, 2),
    '< 50 ms',
    median(closes) < 50,
  );

  // 5. Snapshot: extraction time and result size of a 200x50 screen, every cell its own style.
  const { createTerminal } = await import('../build/src/screen/xterm.js');
  const { extractScreen } = await import('../build/src/screen/grid.js');
  const term = createTerminal({ cols: 200, rows: 50, scrollback: 2000 });
  await new Promise((r) => term.write(styledFrames(200, 50, 1), r));
  for (let i = 0; i < 20; i++) extractScreen(term);
  const extract = median(
    await repeat(50, () => {
      const t = performance.now();
      extractScreen(term);
      return performance.now() - t;
    }),
  );
  term.dispose();
  report('extract 200x50, a style per cell', fmt(extract, 2), 'ms', '', '', '< 5 ms', extract < 5);
  const styledScreen = await client.call('terminal_start', {
    command: styledScreenCommand(200, 50),
    login: false,
    cols: 200,
    rows: 50,
    settleMs: 300,
  });
  const ours = Buffer.byteLength(JSON.stringify(styledScreen));
  const seed = Buffer.byteLength(
    JSON.stringify(
      seedFormat(styledScreen.structuredContent.sessionId, styledScreen.structuredContent.snapshot),
    ),
  );
  await client.call('terminal_close', { sessionId: styledScreen.structuredContent.sessionId });
  report(
    'result size, that 200x50 screen',
    fmt(ours / 1024, 0),
    'KiB',
    `${fmt(seed / 1024, 0)} KiB in the seed 003 format`,
    fmt(ours / seed, 2),
    '<= 0.50',
    ours / seed <= 0.5,
  );
  // A typical shell screen: a coloured prompt, a command and a page of coloured listing.
  const prompt = String.raw`\033[1;32mdev@host\033[0m:\033[1;34m~/project\033[0m$ `;
  const shell = await client.call('terminal_start', {
    command: `printf '${prompt}ls -l /etc\\n'; ls -l --color=always /etc | head -24; printf '${prompt}'; sleep 600`,
    login: false,
    cols: 120,
    rows: 40,
    settleMs: 300,
  });
  const shellBytes = Buffer.byteLength(JSON.stringify(shell));
  await client.call('terminal_close', { sessionId: shell.structuredContent.sessionId });
  report(
    'result size, 120x40 shell screen (ls)',
    fmt(shellBytes / 1024, 1),
    'KiB',
    '',
    '',
    '< 6 KiB',
    shellBytes < 6 * 1024,
  );

  await client.close();

  // 6. Memory: eight sessions that have each printed 2000 lines of 200 columns, in a fresh server.
  const fresh = await connect();
  const idle = fresh.rssMiB();
  const ids = [];
  for (let i = 0; i < 8; i++) {
    const r = await fresh.call('terminal_start', {
      command: `${process.execPath} -e 'process.stdout.write(("y".repeat(199) + "\\n").repeat(2000)); setTimeout(() => {}, 600000)'`,
      login: false,
      cols: 200,
      rows: 50,
      settleMs: 300,
      settleTimeoutMs: 10_000,
    });
    ids.push(r.structuredContent.sessionId);
  }
  const loaded = fresh.rssMiB();
  for (const id of ids) await fresh.call('terminal_close', { sessionId: id });
  // The closest peer is not on the registry this bench can reach: its figure for the same load,
  // measured on Node 24 on a quiet 2-core machine, is recorded here.
  const PEER_MIB = 193;
  report(
    'RSS, 8 sessions x 2000 lines x 200 cols',
    fmt(loaded, 0),
    'MiB',
    `${fmt(idle, 0)} MiB idle; ${PEER_MIB} MiB the closest peer (recorded)`,
    fmt(loaded / PEER_MIB, 2),
    '<= 0.60 of the peer',
    loaded / PEER_MIB <= 0.6,
  );
  await fresh.close();

  // 6b. Memory with full transcripts: eight sessions that each printed 40 MiB, past what a
  // transcript kept in memory used to hold (32 MiB), in a fresh server, beside the documented
  // bound (the transcripts are on disk: 170 MiB + 8 x 0.5 MiB).
  const full = await connect();
  const started = performance.now();
  const fullIds = [];
  const line = `build step ${'='.repeat(180)} ok`;
  for (let i = 0; i < 8; i++) {
    const r = await full.call('terminal_start', {
      command: `yes '${line}' | head -c ${40 * 1024 * 1024}; echo; echo DONE; exec cat`,
      shell: '/bin/sh',
      login: false,
      cols: 200,
      rows: 50,
      settleMs: 0,
    });
    fullIds.push(r.structuredContent.sessionId);
  }
  let peakFull = full.rssMiB();
  for (const id of fullIds) {
    for (;;) {
      peakFull = Math.max(peakFull, full.rssMiB());
      const r = await full.call('terminal_snapshot', { sessionId: id, settleMs: 0 });
      if (r.structuredContent.snapshot.screen.includes('DONE')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const fullSeconds = (performance.now() - started) / 1000;
  const filled = full.rssMiB();
  for (const id of fullIds) await full.call('terminal_close', { sessionId: id });
  const bound = 170 + 8 * 0.5;
  report(
    'RSS, 8 sessions x 40 MiB printed',
    fmt(Math.max(peakFull, filled), 0),
    'MiB',
    `${fmt(bound, 0)} MiB bound, ${fmt(8 * 40, 0)} MiB on disk`,
    fmt(Math.max(peakFull, filled) / bound, 2),
    `< bound (${fmt(fullSeconds, 0)} s)`,
    Math.max(peakFull, filled) < bound,
  );
  await full.close();

  // 6c. The firehose (eight sessions of yes: terminal_list latency and peak RSS meanwhile), then
  // the transcript on disk (its files, the server's memory and a find over all of it).
  await reportFirehose(report, fmt, RUNS);
  await reportTranscript(report, fmt, RUNS);

  // 7. Start-up: initialize and tools/list answered, from process start; beside a bare node and a
  // minimal server built on the same SDK (bundled the same way, listing no tools).
  const minimal = await buildMinimalServer();
  const floor = median(await repeat(9, () => nodeFloorOnce()));
  const sdkFloor = median(await repeat(9, () => startupOnce([minimal])));
  const startup = median(await repeat(9, () => startupOnce()));
  report(
    'initialize + tools/list from spawn',
    fmt(startup, 0),
    'ms',
    `${fmt(sdkFloor, 0)} ms minimal SDK server, node ${fmt(floor, 0)}`,
    fmt(startup / sdkFloor, 2),
    '< 150 ms',
    startup < 150,
  );

  // 8. The tool list as an MCP SDK client (Claude Code, the MCP Inspector) pays for it.
  await reportToolList(report, fmt, SERVER, minimal);

  // 9. Result size per channel: the text block and the structuredContent of typical steps.
  const channels = await connect();
  await reportResultChannels(report, fmt, channels, python);
  await channels.close();

  // 10. The same calls over MCP Streamable HTTP (serve --http) beside stdio.
  await reportHttp(report, fmt, connect, python, RUNS);
}

/** Bundles a minimal stdio server on the same SDK, the floor for start-up on this machine. */
async function buildMinimalServer() {
  const { build } = await import('esbuild');
  const source = [
    "import { Server } from '@modelcontextprotocol/sdk/server/index.js';",
    "import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';",
    "import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';",
    "const server = new Server({ name: 'minimal', version: '1' }, { capabilities: { tools: {} } });",
    'server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));',
    'await server.connect(new StdioServerTransport());',
    "process.stdin.on('end', () => process.exit(0));",
  ].join('\n');
  const outfile = '.bench/minimal-server.mjs';
  await build({
    stdin: { contents: source, resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}

/** The same screen in seed 003's published result format, for the size comparison. */
function seedFormat(sessionId, s) {
  const color = (c) =>
    typeof c === 'number' ? { kind: 'palette', index: c } : { kind: 'rgb', value: c };
  const styles = {};
  for (const [id, style] of Object.entries(s.styles)) {
    const out = {};
    if (style.fg !== undefined) out.foreground = color(style.fg);
    if (style.bg !== undefined) out.background = color(style.bg);
    for (const [k, v] of Object.entries(style)) if (v === true) out[k] = true;
    styles[id] = out;
  }
  const spans = s.spans.map(([row, startColumn, endColumn, styleId]) => ({
    row,
    startColumn,
    endColumn,
    styleId,
  }));
  const byRow = new Map();
  for (const { row, startColumn, endColumn, styleId } of spans) {
    const list = byRow.get(row) ?? [];
    list.push(
      startColumn === endColumn
        ? `${startColumn}=${styleId}`
        : `${startColumn}-${endColumn}=${styleId}`,
    );
    byRow.set(row, list);
  }
  const text = [
    ...s.screen.map((line, i) => `${i + 1}: ${line}`),
    ...[...byRow].map(([row, list]) => `${row}: ${list.join(' ')}`),
  ].join('\n');
  return {
    content: [{ type: 'text', text }],
    structuredContent: {
      sessionId,
      status: s.status,
      cols: s.cols,
      rows: s.rows,
      buffer: s.buffer,
      screen: s.screen,
      cursor: s.cursor,
      styles,
      spans,
      mouse: { tracking: 'none', encoding: 'legacy' },
      settled: s.settled,
    },
  };
}
