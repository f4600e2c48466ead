// agent-tty attach: how soon a person watching sees what the program printed, and what a watcher
// costs the session. Latency: the agent types `echo $((N))Z` and Enter (a result that does not
// wait), and the clock stops when a frame with the output line reaches a watcher on the socket;
// beside it, the same echo in a bash driven over a raw PTY (node-pty alone), this machine's
// floor. Cost: `seq` to its exited screen with a watcher attached and reading, against none.
// Frame size: a full redraw of a 200x50 screen with a colour on every cell.
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pty from 'node-pty';

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** A watcher on the socket: resolves frames as they come. */
function watch(path, sessionId, cols, rows) {
  return new Promise((resolve, reject) => {
    const socket = netConnect(path);
    let buffer = '';
    const waiters = [];
    let bytes = 0;
    socket.setEncoding('utf8');
    let proofFd;
    socket.on('data', (chunk) => {
      bytes += chunk.length;
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
        const message = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (message.type === 'hello') {
          // Shows which process this is, as agent-tty attach does (spec/attach.md).
          if (message.proof) proofFd = openSync(message.proof, constants.O_RDONLY);
          const identity = proofFd === undefined ? {} : { pid: process.pid, proofFd };
          socket.write(
            `${JSON.stringify({ type: 'attach', sessionId, readOnly: true, cols, rows, ...identity })}\n`,
          );
          continue;
        }
        if (message.type !== 'frame') continue;
        for (const w of [...waiters]) {
          if (message.data.includes(w.text)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(performance.now());
          }
        }
      }
    });
    socket.on('error', reject);
    socket.on('connect', () => {
      resolve({
        seen: (text) => new Promise((r) => waiters.push({ text, resolve: r })),
        bytes: () => bytes,
        close: () => {
          socket.destroy();
          if (proofFd !== undefined) closeSync(proofFd);
        },
      });
    });
  });
}

/** The echo round trip through a raw PTY: the floor of what any terminal can show. */
async function rawEcho(runs) {
  const term = pty.spawn('bash', ['--norc', '--noprofile'], {
    cols: 80,
    rows: 24,
    env: { ...process.env, PS1: '$ ' },
  });
  let out = '';
  term.onData((d) => {
    out += d;
  });
  await new Promise((r) => setTimeout(r, 300));
  const times = [];
  for (let i = 0; i < runs; i++) {
    const want = `${5000 + i}Z\r\n`;
    out = '';
    const started = performance.now();
    term.write(`echo $((5000+${i}))Z\r`);
    while (!out.includes(want)) await new Promise((r) => setImmediate(r));
    times.push(performance.now() - started);
  }
  term.kill();
  return median(times);
}

export async function reportAttach(report, fmt, connect, seqCommand, runs) {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tty-bench-attach-'));
  process.env.AGENT_TTY_SOCKET_DIR = join(dir, 'sockets');
  const client = await connect();
  try {
    await new Promise((r) => setTimeout(r, 500));
    const path = join(dir, 'sockets', `${client.pid}.sock`);
    const start = await client.call('terminal_start', {
      command: 'bash --norc --noprofile',
      shell: '/bin/sh',
      login: false,
      cols: 80,
      rows: 24,
      env: { PS1: '$ ' },
    });
    const sessionId = start.structuredContent.sessionId;
    const watcher = await watch(path, sessionId, 80, 24);
    const latencies = [];
    for (let i = 0; i < Math.max(runs, 9); i++) {
      const seen = watcher.seen(`${1000 + i}Z`);
      const started = performance.now();
      await client.call('terminal_input', {
        sessionId,
        actions: [{ type: 'text', text: `echo $((1000+${i}))Z\r` }],
        settleMs: 0,
      });
      latencies.push((await seen) - started);
    }
    watcher.close();
    await client.call('terminal_close', { sessionId });
    const attachMs = median(latencies);
    const rawMs = await rawEcho(Math.max(runs, 9));
    report(
      'attach: echo output on a watcher',
      fmt(attachMs),
      'ms',
      `${fmt(rawMs)} ms raw PTY echo`,
      fmt(rawMs / attachMs, 2),
      '< 50 ms',
      attachMs < 50,
    );

    // Throughput with a watcher attached (reading), against none.
    const seqOnce = async (withWatcher) => {
      const started = performance.now();
      let result = await client.call('terminal_start', {
        command: seqCommand,
        shell: '/bin/sh',
        login: false,
        cols: 80,
        rows: 24,
        settleMs: 0,
      });
      const id = result.structuredContent.sessionId;
      const w = withWatcher ? await watch(path, id, 80, 24) : undefined;
      while (result.structuredContent.snapshot.status !== 'exited') {
        result = await client.call('terminal_snapshot', { sessionId: id, settleMs: 0 });
      }
      const ms = performance.now() - started;
      const bytes = w?.bytes() ?? 0;
      w?.close();
      await client.call('terminal_close', { sessionId: id });
      return { ms, bytes };
    };
    const alone = [];
    const watched = [];
    for (let i = 0; i < runs; i++) {
      alone.push((await seqOnce(false)).ms);
      watched.push(await seqOnce(true));
    }
    const aloneMs = median(alone);
    const watchedMs = median(watched.map((w) => w.ms));
    report(
      'seq to exited, a watcher attached',
      fmt(watchedMs, 0),
      'ms',
      `${fmt(aloneMs, 0)} ms with none`,
      fmt(aloneMs / watchedMs, 2),
      '>= 0.90',
      aloneMs / watchedMs >= 0.9,
    );
    report(
      '  frames sent to that watcher',
      fmt(median(watched.map((w) => w.bytes)) / 1024, 0),
      'KiB',
      '',
      '',
      '',
    );
  } finally {
    await client.close();
    delete process.env.AGENT_TTY_SOCKET_DIR;
    rmSync(dir, { recursive: true, force: true });
  }
}
