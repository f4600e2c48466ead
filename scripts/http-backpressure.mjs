// HTTP back-pressure figure (issue 35, S3; spec/http.md, Bounds): a client with the token POSTs
// batches of 100 large terminal_snapshot calls and never reads its response streams, while an
// honest client on another MCP session keeps calling. Prints the server's resident memory (from
// /proc) at the baseline after warm-up and at its peak, what the attacker's next request got,
// and whether the honest client was served.
//
//   node scripts/http-backpressure.mjs [POSTS=3,16] [CALLS=100]
//
// Needs dist/ (npm run build), or SERVER=path/to/main.js. Linux only (/proc).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { memoryMiB } from './bench/proc.mjs';

const SERVER =
  process.env.SERVER ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.js');
const postCounts = (process.argv[2] ?? '3,16').split(',').map(Number);
const CALLS = Number(process.argv[3] ?? 100);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function startServer(token) {
  const env = { ...process.env, AGENT_TTY_TOKEN: token };
  const child = spawn(process.execPath, [SERVER, 'serve', '--http', '127.0.0.1:0'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line:\n${stderr}`)), 15_000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const found = /serving MCP over HTTP at (\S+)/.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]);
      }
    });
  });
  return { child, url };
}

/** An honest MCP session over fetch: every reply read in full. */
async function honestSession(url, token) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`,
  };
  let nextId = 1;
  const post = async (body, sessionId) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: sessionId ? { ...headers, 'mcp-session-id': sessionId } : headers,
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, sessionId: res.headers.get('mcp-session-id'), text };
  };
  const init = await post({
    jsonrpc: '2.0',
    id: nextId++,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'backpressure-figure', version: '1' },
    },
  });
  const sessionId = init.sessionId;
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId);
  const call = (name, args) =>
    post(
      { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } },
      sessionId,
    );
  return { sessionId, call, post };
}

/** POSTs `body` on session `sessionId` and never reads the answer; resolves with its status. */
function neverRead(url, token, sessionId, body) {
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          'mcp-session-id': sessionId,
        },
      },
      (res) => {
        res.pause(); // never read: the server's writes back up
        res.on('error', () => {});
        resolve({ status: res.statusCode, res, req });
      },
    );
    req.on('error', (err) => resolve({ error: err.code ?? err.message, req }));
    req.end(JSON.stringify(body));
  });
}

async function trial(posts) {
  const token = randomBytes(32).toString('hex');
  const { child, url } = await startServer(token);
  try {
    const honest = await honestSession(url, token);
    const started = await honest.call('terminal_start', {
      command: "i=0; while [ $i -lt 4000 ]; do printf '%0490d\\n' $i; i=$((i+1)); done; sleep 600",
      cols: 500,
      rows: 200,
    });
    const sessionIdOf = /"sessionId":"(t\d+)"/.exec(started.text);
    if (!sessionIdOf) throw new Error(`no terminal: ${started.text.slice(0, 300)}`);
    const tid = sessionIdOf[1];
    await sleep(3000);
    const args = { sessionId: tid, scrollbackLines: 2000, historySince: 0 };
    // Warm-up: the snapshot paths run, their code is compiled.
    let replyBytes = 0;
    for (let i = 0; i < 10; i++)
      replyBytes = (await honest.call('terminal_snapshot', args)).text.length;
    await sleep(500);
    const base = memoryMiB(child.pid).rss;

    const attacker = await honestSession(url, token);
    let id = 1000;
    const batch = () =>
      Array.from({ length: CALLS }, () => ({
        jsonrpc: '2.0',
        id: id++,
        method: 'tools/call',
        params: { name: 'terminal_snapshot', arguments: args },
      }));
    const sent = await Promise.all(
      Array.from({ length: posts }, () => neverRead(url, token, attacker.sessionId, batch())),
    );
    // Until the server's memory stops growing (or 180 s), sampling its peak; the honest client
    // calls meanwhile.
    let peak = 0;
    let honestOk = 0;
    let honestFailed = 0;
    let last = 0;
    let still = 0;
    const t0 = Date.now();
    while (Date.now() - t0 < 180_000 && still < 8) {
      const got = await honest.call('terminal_snapshot', { sessionId: tid });
      if (got.status === 200 && got.text.includes('"screen"')) honestOk++;
      else honestFailed++;
      const { rss } = memoryMiB(child.pid);
      peak = Math.max(peak, rss);
      still = Math.abs(rss - last) < 4 ? still + 1 : 0;
      last = rss;
      await sleep(500);
    }
    const next = await neverRead(url, token, attacker.sessionId, batch().slice(0, 1));
    const after = memoryMiB(child.pid);
    for (const s of [...sent, next]) s.req.destroy();
    return {
      posts,
      calls: CALLS,
      replyBytes,
      baselineMiB: Math.round(base),
      peakSampledMiB: Math.round(peak),
      vmHwmMiB: Math.round(after.peak),
      endMiB: Math.round(after.rss),
      ratio: Number((after.peak / base).toFixed(2)),
      attackerStatuses: sent.map((s) => s.status ?? s.error),
      attackerNextStatus: next.status ?? next.error,
      honestServed: honestOk,
      honestFailed,
    };
  } finally {
    child.kill('SIGTERM');
  }
}

for (const posts of postCounts) {
  process.stdout.write(`${JSON.stringify(await trial(posts))}\n`);
}
