// MCP over HTTP (agent-tty serve --http) beside stdio, in the same run: the python3 step and a
// styled 200x50 snapshot (a large result) through the SDK's Streamable HTTP client against the
// same calls through its stdio client. The ratio is what the HTTP transport costs a call; most
// of it is the client's (the SDK's client parses each answer's SSE stream with web streams, about
// 3 ms a call here), so terminal_list is also shown beside a bare fetch the server refuses.
// Last, terminal_list while another process floods the server with wrong tokens, beside quiet
// windows between: what the flood costs an honest client (spec/http.md, Authentication).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SERVER } from './client.mjs';

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A flood: up to `total` POSTs with wrong tokens, `parallel` at a time, for `seconds` or more. */
const FLOOD = { total: 2000, parallel: 32, seconds: 3 };
/**
 * The attacker: `TOTAL` POSTs with wrong tokens, `PARALLEL` at a time, each on a new connection;
 * prints how many got their 401 so far, every 100 ms.
 */
const ATTACKER = `
  import { request } from 'node:http';
  import { randomBytes } from 'node:crypto';
  const [url, total, parallel] = [process.env.URL, Number(process.env.TOTAL), Number(process.env.PARALLEL)];
  let sent = 0;
  let answered = 0;
  const one = () => new Promise((resolve) => {
    const req = request(url, {
      method: 'POST',
      agent: false,
      headers: { authorization: 'Bearer ' + randomBytes(32).toString('hex'), 'content-type': 'application/json' },
    }, (res) => { res.resume(); res.on('end', () => { if (res.statusCode === 401) answered++; resolve(); }); });
    req.on('error', () => resolve());
    req.end('{}');
  });
  setInterval(() => process.stdout.write(answered + '\\n'), 100);
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (sent < total) { sent++; await one(); }
  }));
  process.stdout.write(answered + '\\n');
  process.exit(0);
`;

/** `agent-tty serve --http 127.0.0.1:0` with a fresh token, and an SDK client connected to it. */
export async function connectHttp() {
  const token = randomBytes(32).toString('hex');
  const { AGENT_TTY_TOKEN: _ignored, ...env } = process.env;
  const child = spawn(process.execPath, [SERVER, 'serve', '--http', '127.0.0.1:0'], {
    env: { ...env, AGENT_TTY_TOKEN: token },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const found = /serving MCP over HTTPS? at (\S+)/.exec(stderr);
      if (found) resolve(found[1]);
    });
    child.on('exit', (code) => reject(new Error(`serve --http exited ${code}: ${stderr}`)));
  });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'agent-tty-bench', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name, args) => {
    const result = await client.callTool({ name, arguments: args }, undefined, {
      timeout: 120_000,
    });
    if (result.isError) throw new Error(`${name}: ${result.content[0]?.text}`);
    return result;
  };
  /** ms of a POST the server refuses at once (another path): the floor of any call here. */
  const floorOnce = async () => {
    const t0 = performance.now();
    const res = await fetch(url.replace(/\/mcp$/, '/floor'), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: '{}',
    });
    await res.arrayBuffer();
    return performance.now() - t0;
  };
  return {
    url,
    call,
    floorOnce,
    close: async () => {
      await client.close();
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/** Median ms of `n` python3 steps (`i+1` Enter until the answer shows) over `client`. */
async function steps(client, python, n) {
  const started = await client.call('terminal_start', {
    command: python,
    login: false,
    cols: 80,
    rows: 24,
    settleMs: 500,
  });
  const sessionId = started.structuredContent.sessionId;
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const result = await client.call('terminal_input', {
      sessionId,
      actions: [
        { type: 'text', text: `${i}+1` },
        { type: 'key', key: 'Enter' },
      ],
    });
    times.push(performance.now() - t0);
    if (!result.structuredContent.snapshot.screen.includes(String(i + 1)))
      throw new Error(`step ${i}: answer missing`);
  }
  await client.call('terminal_close', { sessionId });
  return median(times);
}

/** Median ms of `n` settleMs:0 snapshots of a 200x50 screen with a colour on every cell. */
async function styledSnapshots(client, n) {
  const started = await client.call('terminal_start', {
    command: 'cat .bench/styled.bin; exec cat',
    shell: '/bin/sh',
    login: false,
    cols: 200,
    rows: 50,
    settleMs: 300,
  });
  const sessionId = started.structuredContent.sessionId;
  const times = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const result = await client.call('terminal_snapshot', { sessionId, settleMs: 0 });
    times.push(performance.now() - t0);
    bytes = JSON.stringify(result).length;
  }
  await client.call('terminal_close', { sessionId });
  return { ms: median(times), bytes };
}

/** ms of each of `n` terminal_list calls over `client`, one after another. */
async function listTimes(client, n) {
  const times = [];
  while (times.length < n) {
    const t0 = performance.now();
    await client.call('terminal_list', {});
    times.push(performance.now() - t0);
  }
  return times;
}

/**
 * One window of FLOOD: ms of `calls` terminal_list calls from the flood's first second on (past
 * the first, short delays every refusal waits its 2 s); and how many wrong tokens got their 401
 * in how many seconds (FLOOD.seconds at least).
 */
async function floodWindow(http, calls) {
  const attacker = spawn(process.execPath, ['--input-type=module', '-e', ATTACKER], {
    env: {
      ...process.env,
      URL: http.url,
      TOTAL: `${FLOOD.total}`,
      PARALLEL: `${FLOOD.parallel}`,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let answered = 0;
  attacker.stdout.on('data', (chunk) => {
    answered = Number(chunk.toString().trim().split('\n').at(-1));
  });
  const started = performance.now();
  try {
    await sleep(1000);
    const times = await listTimes(http, calls);
    // Refusals are counted over a few seconds at least: their first second is not the pace.
    await sleep(FLOOD.seconds * 1000 - (performance.now() - started));
    return { times, answered, seconds: (performance.now() - started) / 1000 };
  } finally {
    attacker.kill('SIGKILL');
    // The server still holds the killed attacker's last refusals for up to 2 s.
    await sleep(2500);
  }
}

/**
 * terminal_list's median in quiet windows and FLOOD windows of as many calls taken in turn,
 * `runs` of each, so that the machine's own drift falls on both alike.
 */
async function duringFlood(http, calls, runs) {
  await listTimes(http, calls); // warm up after the calls before
  const [quiet, during] = [[], []];
  let [answered, seconds] = [0, 0];
  for (let r = 0; r < runs; r++) {
    quiet.push(...(await listTimes(http, calls)));
    const flood = await floodWindow(http, calls);
    during.push(...flood.times);
    answered += flood.answered;
    seconds += flood.seconds;
  }
  return { quiet: median(quiet), during: median(during), refusalsPerSecond: answered / seconds };
}

/** Reports the HTTP rows; `stdio` is a connected stdio client (bench/client.mjs connect()). */
export async function reportHttp(report, fmt, connect, python, runs) {
  const n = Math.max(runs * 4, 20);
  const stdio = await connect();
  const http = await connectHttp();
  try {
    const lists = [];
    const floors = [];
    for (let i = 0; i < n * 5; i++) {
      floors.push(await http.floorOnce());
      const t0 = performance.now();
      await http.call('terminal_list', {});
      lists.push(performance.now() - t0);
    }
    report(
      'HTTP: terminal_list, SDK client (median)',
      fmt(median(lists)),
      'ms',
      `${fmt(median(floors))} ms fetch of a 404 here`,
      fmt(median(lists) / median(floors), 2),
      '',
    );
    const stdioStep = await steps(stdio, python, n);
    const httpStep = await steps(http, python, n);
    report(
      'HTTP: python3 step 1+1 Enter (median)',
      fmt(httpStep),
      'ms',
      `${fmt(stdioStep)} ms over stdio`,
      fmt(httpStep / stdioStep, 2),
      '<= 1.50',
      httpStep / stdioStep <= 1.5,
    );
    const stdioShot = await styledSnapshots(stdio, n);
    const httpShot = await styledSnapshots(http, n);
    report(
      `HTTP: styled 200x50 snapshot, ${Math.round(httpShot.bytes / 1024)} KiB`,
      fmt(httpShot.ms),
      'ms',
      `${fmt(stdioShot.ms)} ms over stdio`,
      fmt(httpShot.ms / stdioShot.ms, 2),
      '<= 1.20',
      httpShot.ms / stdioShot.ms <= 1.2,
    );
    const flood = await duringFlood(http, n * 5, runs);
    const rate = flood.refusalsPerSecond;
    report(
      `HTTP: wrong tokens ${FLOOD.parallel} at a time, answered`,
      fmt(rate, 0),
      '401/s',
      `${FLOOD.total} would take ${fmt(FLOOD.total / rate / 60, 1)} min`,
      '',
      '<= 40/s',
      rate <= 40,
    );
    report(
      'HTTP: terminal_list during that flood (median)',
      fmt(flood.during, 2),
      'ms',
      `${fmt(flood.quiet, 2)} ms in quiet windows between`,
      fmt(flood.during / flood.quiet, 2),
      '<= 1.10',
      flood.during / flood.quiet <= 1.1,
    );
  } finally {
    await stdio.close();
    await http.close();
  }
}
