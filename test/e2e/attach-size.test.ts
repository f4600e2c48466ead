/**
 * `agent-tty attach` from a terminal that does not know its size yet: `docker exec -t` (and some
 * `kubectl exec -t`) give the command a terminal of 0x0 and set the real size a moment later, or,
 * when their first resize is lost, only once the window is resized. The CLI runs in a real PTY
 * whose size a shell sets to 0x0 (stty) before the CLI starts; the test resizes it later, as
 * docker does. And a client of an earlier version, which sends the 0x0 it reads, is not refused.
 */
import assert from 'node:assert/strict';
import { closeSync, constants, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Harness, startServer } from '../helpers/server.js';
import { screenText } from '../helpers/tool-calls.js';
import { waitUntil } from '../helpers/wait.js';
import { openWatcher, type WatcherTerminal } from '../helpers/watcher.js';

const BASH = 'bash --norc --noprofile';
const REFUSED = /not an attach protocol message/;

/**
 * A client that sends `request` once the server's hello came (with this process's pid and the
 * proof file the hello names, held open, as `agent-tty attach` does), then `more`; resolves with
 * every message the server sent within `ms`.
 */
function rawAttach(path: string, request: object, more: object[], ms: number): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    const received: { type?: string; proof?: string }[] = [];
    let buffer = '';
    let proofFd: number | undefined;
    const send = (value: object) => socket.write(`${JSON.stringify(value)}\n`);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
        const message = JSON.parse(buffer.slice(0, nl)) as { type?: string; proof?: string };
        buffer = buffer.slice(nl + 1);
        received.push(message);
        if (message.type === 'hello') {
          if (message.proof !== undefined) {
            proofFd = openSync(message.proof, constants.O_RDONLY | constants.O_NONBLOCK);
          }
          send({ ...request, ...(proofFd === undefined ? {} : { pid: process.pid, proofFd }) });
        } else if (message.type === 'attached') {
          for (const m of more) send(m);
          setTimeout(() => socket.end(), ms);
        }
      }
    });
    socket.on('error', reject);
    socket.on('close', () => {
      if (proofFd !== undefined) closeSync(proofFd);
      resolve(received);
    });
  });
}

describe('agent-tty attach from a terminal of unknown size', () => {
  let h: Harness;
  let dir: string;
  let env: Record<string, string>;
  let socket: string;
  const watchers: WatcherTerminal[] = [];
  /** The CLI in a 100x30 terminal that reports 0x0 until the test resizes it. */
  const watchUnsized = (id: string) => {
    const w = openWatcher([id], { env, cols: 100, rows: 30, sizeUnknown: true });
    watchers.push(w);
    return w;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-tty-attach-size-'));
    env = { AGENT_TTY_SOCKET_DIR: join(dir, 'sockets') };
    h = await startServer({ env });
    socket = join(dir, 'sockets', `${h.pid}.sock`);
    await waitUntil(() => {
      try {
        return statSync(socket).isSocket();
      } catch {
        return false;
      }
    }, 'the attach socket');
  });
  after(async () => {
    for (const w of watchers) w.kill();
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('waits for the size that arrives a moment later (docker exec -t), then shows the screen', async () => {
    const { id } = await h.start({ command: BASH, cols: 80, rows: 24, login: false });
    await h.input(id, [
      { type: 'text', text: "PS1='$ '; echo marker-$((6*7))\r" },
      { type: 'wait', pattern: '^marker-42$' },
    ]);
    const w = watchUnsized(id);
    // The CLI has started and read its size (0x0) once it prints anything.
    await waitUntil(() => w.output() !== '' || w.exitCode() !== undefined, 'the CLI started');
    assert.match(w.output(), /waiting for this terminal's size \(it says 0x0\)/);
    w.resize(100, 30);
    await w.waitForText(new RegExp(`^ agent-tty · ${id} · 80x24 · `, 'm')).catch((err) => {
      throw new Error(`${(err as Error).message}\nthe person saw:\n${w.output()}`);
    });
    assert.match(w.rows().join('\n'), /^marker-42$/m);
    assert.doesNotMatch(w.output(), REFUSED);
    assert.equal(w.exitCode(), undefined, 'still attached');
    w.type('echo typed-$((1+1))\r');
    await h.waitFor(id, (s) => /^typed-2$/m.test(screenText(s)));
    w.type('\x1c');
    assert.equal(await w.exited, 0);
    await h.call('terminal_close', { sessionId: id });
  });

  it('says so while the size never arrives; what is typed reaches the program; the screen comes with the size', async () => {
    const { id } = await h.start({ command: BASH, cols: 80, rows: 24, login: false });
    await h.input(id, [
      { type: 'text', text: `PS1='$ '; read -p "name? " n; echo "hello $n"\r` },
      { type: 'wait', pattern: 'name\\? $' },
    ]);
    const w = watchUnsized(id);
    await w.waitForText(/has not reported its size/).catch((err) => {
      throw new Error(`${(err as Error).message}\nthe person saw:\n${w.output()}`);
    });
    // Where its lines wrap is not known, so the notice goes as one line (the terminal wraps it).
    assert.match(w.output(), /what you type still reaches the program/);
    await w.waitForText(/^the line with the cursor \(row \d+ of 24\):$/m);
    await w.waitForText(/^name\?$/m);
    w.type('ada');
    await w.waitForText(/^name\? ada$/m);
    const rows = w.rows();
    const at = rows.indexOf('name? ada');
    // 1-based, as snapshots give it: just after what was typed.
    assert.deepEqual(w.view().cursor, { row: at + 1, column: 10, visible: true });
    w.resize(100, 30);
    await w.waitForText(new RegExp(`^ agent-tty · ${id} · 80x24 · `, 'm'));
    assert.match(w.rows().join('\n'), /^name\? ada$/m);
    w.type('\r');
    await h.waitFor(id, (s) => /^hello ada$/m.test(screenText(s)));
    assert.equal(w.exitCode(), undefined, 'still attached');
    w.type('\x1c');
    assert.equal(await w.exited, 0);
    assert.doesNotMatch(w.output(), REFUSED);
    await h.call('terminal_close', { sessionId: id });
  });

  it("takes an earlier client's 0x0 as a size not known yet, not as a fault", async () => {
    const { id } = await h.start({ command: BASH, cols: 80, rows: 24, login: false });
    const request = { type: 'attach', sessionId: id, readOnly: false, cols: 0, rows: 0 };
    const received = await rawAttach(
      socket,
      request,
      [
        { type: 'size', cols: 0, rows: 0 },
        { type: 'size', cols: 120, rows: 0 },
        { type: 'size', cols: 100, rows: 30 },
      ],
      500,
    );
    const types = received.map((m) => (m as { type: string }).type);
    assert.deepEqual(types.slice(0, 2), ['hello', 'attached'], JSON.stringify(received));
    assert.ok(!types.includes('end'), JSON.stringify(received));
    const frames = received.map((m) => (m as { data?: string }).data ?? '').join('');
    assert.match(frames, /has not reported its size/);
    assert.match(frames, new RegExp(` agent-tty · ${id} · 80x24 · `), 'drawn once a size came');
    await h.call('terminal_close', { sessionId: id });
  });
});
