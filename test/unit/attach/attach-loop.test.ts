import assert from 'node:assert/strict';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, it } from 'node:test';
import { runAttachLoop } from '../../../src/attach/attach-loop.js';
import { RESTORE_TERMINAL } from '../../../src/attach/frame.js';
import { type ClientMessage, MAX_INPUT_CHUNK } from '../../../src/attach/protocol.js';
import {
  type SocketServer,
  startSocketServer,
  tempSocketDir,
} from '../../helpers/attach-socket.js';
import { waitUntil } from '../../helpers/wait.js';

const DETACH = '\x1c';
const ENTER = '\x1b[?1049h';
const LEAVE = `${RESTORE_TERMINAL}\x1b[?1049l\x1b[23;0t`;

/** The person's terminal as a PassThrough trio: what the program wrote, and its raw mode. */
function terminal(cols = 80, rows = 24) {
  const rawModes: boolean[] = [];
  const stdin = Object.assign(new PassThrough(), {
    setRawMode: (raw: boolean) => rawModes.push(raw),
  });
  const stdout = Object.assign(new PassThrough(), { columns: cols, rows });
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  stderr.on('data', (c: Buffer) => {
    err += c.toString('utf8');
  });
  return { streams: { stdin, stdout, stderr }, rawModes, out: () => out, err: () => err };
}

const { dir, remove } = tempSocketDir();
const servers: SocketServer[] = [];
// A failed test leaves its attachment open: closing its server ends it, so the file ends.
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  remove();
});
let next = 1;

/** A server whose session t1 accepts the attach (or, with `refuse`, ends it at once). */
async function server(refuse?: string): Promise<SocketServer> {
  const pid = next++;
  const s = await startSocketServer(join(dir, `${pid}.sock`), (m) => {
    if (m.type !== 'attach') return [];
    if (refuse !== undefined) return [{ type: 'end', reason: 'error', message: refuse }];
    return [{ type: 'attached', sessionId: m.sessionId, command: null, readOnly: m.readOnly }];
  });
  servers.push(s);
  return s;
}

const pidOf = (s: SocketServer) => Number(/(\d+)\.sock$/.exec(s.path)?.[1]);
const inputs = (s: SocketServer) =>
  s.received.flatMap((m: ClientMessage) => (m.type === 'input' ? [m.data] : []));

async function attached(s: SocketServer, readOnly = false, cols = 80, rows = 24) {
  const t = terminal(cols, rows);
  const code = runAttachLoop(t.streams, {
    server: { path: s.path, pid: pidOf(s) },
    sessionId: 't1',
    readOnly,
  });
  await waitUntil(() => t.out().includes(ENTER), 'the alternate screen entered');
  return { ...t, code };
}

describe('runAttachLoop', () => {
  it('asks with the terminal size, enters the alternate screen and draws the frames', async () => {
    const s = await server();
    const t = await attached(s, false, 100, 30);
    assert.deepEqual(s.received[0], {
      type: 'attach',
      sessionId: 't1',
      readOnly: false,
      cols: 100,
      rows: 30,
    });
    assert.deepEqual(t.rawModes, [true]);
    assert.ok(t.out().startsWith('\x1b[22;0t\x1b]2;agent-tty attach t1 · Ctrl-\\ detaches\x07'));
    await s.send({ type: 'frame', data: '\x1b[1;1Hhello' });
    await waitUntil(() => t.out().endsWith('\x1b[1;1Hhello'), 'the frame drawn');
    t.streams.stdin.write(DETACH);
    assert.equal(await t.code, 0);
    await s.close();
  });

  it('sends what is typed up to Ctrl-\\, then detaches, restores the terminal and says so', async () => {
    const s = await server();
    const t = await attached(s);
    t.streams.stdin.write('ls\r');
    await waitUntil(() => inputs(s).join('') === 'ls\r', 'the keys sent');
    t.streams.stdin.write(`x${DETACH}y`);
    assert.equal(await t.code, 0);
    t.streams.stdin.write('z');
    assert.ok(t.out().endsWith(LEAVE), 'modes reset, the alternate screen left, the title back');
    assert.deepEqual(t.rawModes, [true, false]);
    assert.equal(t.streams.stdin.isPaused(), true);
    assert.equal(
      t.err(),
      'agent-tty: detached from t1; it keeps running (agent-tty attach t1 to come back)\n',
    );
    await s.ended();
    assert.equal(inputs(s).join(''), 'ls\rx', 'nothing after Ctrl-\\ is sent');
    await s.close();
  });

  it('sends the new size when the terminal is resized', async () => {
    const s = await server();
    const t = await attached(s);
    Object.assign(t.streams.stdout, { columns: 132, rows: 43 });
    t.streams.stdout.emit('resize');
    await waitUntil(() => s.received.some((m) => m.type === 'size'), 'the size sent');
    assert.deepEqual(s.received.at(-1), { type: 'size', cols: 132, rows: 43 });
    t.streams.stdin.write(DETACH);
    assert.equal(await t.code, 0);
    assert.equal(t.streams.stdout.listenerCount('resize'), 0, 'no resize followed after detaching');
    assert.equal(t.streams.stdin.listenerCount('data'), 0, 'no key read after detaching');
    await s.close();
  });

  it('waits for a terminal that reports 0x0 to report its size, then asks with it', async () => {
    const s = await server();
    const t = terminal(0, 0);
    const code = runAttachLoop(
      t.streams,
      { server: { path: s.path, pid: pidOf(s) }, sessionId: 't1', readOnly: false },
      60_000,
    );
    const waiting = "agent-tty attach: waiting for this terminal's size (it says 0x0)";
    await waitUntil(() => t.out() === waiting, 'the wait told');
    // Resized to no size again: still waiting.
    t.streams.stdout.emit('resize');
    Object.assign(t.streams.stdout, { columns: 100, rows: 30 });
    t.streams.stdout.emit('resize');
    await waitUntil(() => t.out().includes(ENTER), 'the alternate screen entered');
    assert.ok(t.out().startsWith(`${waiting}\r\x1b[2K\x1b[22;0t`), 'the line taken away');
    assert.deepEqual(s.received[0], {
      type: 'attach',
      sessionId: 't1',
      readOnly: false,
      cols: 100,
      rows: 30,
    });
    assert.equal(t.streams.stdout.listenerCount('resize'), 1, 'only the attached one');
    t.streams.stdin.write(DETACH);
    assert.equal(await code, 0);
    await s.close();
  });

  it('asks with 0x0 (not known) when no size comes in time, and never sends a size it does not know', async () => {
    const s = await server();
    const t = terminal();
    // Node leaves a size it could not read undefined.
    Object.assign(t.streams.stdout, { columns: undefined, rows: undefined });
    const code = runAttachLoop(
      t.streams,
      { server: { path: s.path, pid: pidOf(s) }, sessionId: 't1', readOnly: false },
      50,
    );
    await waitUntil(() => t.out().includes(ENTER), 'the alternate screen entered');
    assert.match(t.out(), /it says \?x\?/);
    assert.deepEqual(s.received[0], {
      type: 'attach',
      sessionId: 't1',
      readOnly: false,
      cols: 0,
      rows: 0,
    });
    const resize = (columns: number, rows: number) => {
      Object.assign(t.streams.stdout, { columns, rows });
      t.streams.stdout.emit('resize');
    };
    resize(0, 0);
    resize(90, 0);
    resize(90, 20);
    resize(0, 0);
    resize(91, 20);
    await waitUntil(() => s.received.filter((m) => m.type === 'size').length === 2, 'sizes sent');
    t.streams.stdin.write(DETACH);
    assert.equal(await code, 0);
    await s.ended();
    assert.deepEqual(
      s.received.filter((m) => m.type === 'size'),
      [
        { type: 'size', cols: 90, rows: 20 },
        { type: 'size', cols: 91, rows: 20 },
      ],
    );
    await s.close();
  });

  it('read-only: says so in the title and sends no key, but Ctrl-\\ still detaches', async () => {
    const s = await server();
    const t = await attached(s, true);
    assert.equal((s.received[0] as { readOnly: boolean }).readOnly, true);
    assert.match(t.out(), /agent-tty attach t1 \(read-only\) · Ctrl-\\ detaches/);
    t.streams.stdin.write('rm -rf /\r');
    t.streams.stdin.write(DETACH);
    assert.equal(await t.code, 0);
    await s.ended();
    assert.deepEqual(inputs(s), []);
    await s.close();
  });

  it('sends a long paste in pieces and a character split between reads whole', async () => {
    const s = await server();
    const t = await attached(s);
    const paste = 'p'.repeat(MAX_INPUT_CHUNK * 2 + 5);
    t.streams.stdin.write(paste);
    const euro = Buffer.from('€');
    t.streams.stdin.write(euro.subarray(0, 1));
    t.streams.stdin.write(euro.subarray(1));
    await waitUntil(() => inputs(s).join('') === `${paste}€`, 'the paste and the character sent');
    assert.deepEqual(
      inputs(s).map((d) => d.length),
      [MAX_INPUT_CHUNK, MAX_INPUT_CHUNK, 5, 1],
    );
    t.streams.stdin.write(DETACH);
    assert.equal(await t.code, 0);
    await s.close();
  });

  it('on the program exit: rings for a notice, then prints the notices, the last screen and why', async () => {
    const s = await server();
    const t = await attached(s);
    await s.send({ type: 'notice', message: 'the agent resized the session to 90x20' });
    await waitUntil(() => t.out().endsWith('\x07'), 'the bell');
    await s.send({
      type: 'end',
      reason: 'exited',
      message: 'the program exited (code 0)',
      screen: ['$ exit'],
    });
    assert.equal(await t.code, 0);
    assert.ok(t.out().endsWith(LEAVE));
    assert.equal(
      t.err(),
      'agent-tty: the agent resized the session to 90x20\n$ exit\nagent-tty: the program exited (code 0)\n',
    );
    await s.close();
  });

  it('on a refusal: exit code 1, the terminal untouched, the reason told', async () => {
    const s = await server('no session t1 is open');
    const t = terminal();
    const code = await runAttachLoop(t.streams, {
      server: { path: s.path, pid: pidOf(s) },
      sessionId: 't1',
      readOnly: false,
    });
    assert.equal(code, 1);
    assert.equal(t.out(), '');
    assert.deepEqual(t.rawModes, []);
    assert.equal(t.err(), 'agent-tty: no session t1 is open\n');
    await s.close();
  });

  it('when the server goes away: exit code 1 and the session is said to be gone', async () => {
    const s = await server();
    const t = await attached(s);
    await s.close();
    assert.equal(await t.code, 1);
    assert.ok(t.out().endsWith(LEAVE));
    assert.equal(
      t.err(),
      `agent-tty: the agent-tty server (pid ${pidOf(s)}) ended; session t1 is gone\n`,
    );
  });

  it('when the socket cannot be reached: exit code 1 and why', async () => {
    const t = terminal();
    const code = await runAttachLoop(t.streams, {
      server: { path: join(dir, '999999.sock'), pid: 999999 },
      sessionId: 't1',
      readOnly: false,
    });
    assert.equal(code, 1);
    assert.match(
      t.err(),
      /^agent-tty: the connection to server 999999 failed \(connect ENOENT .*\)\n$/,
    );
  });
});
