/**
 * The attach socket under attack: malformed and overlong lines, requests out of order, typing on
 * a read-only attachment, more connections than allowed, a watcher that stops reading while the
 * program floods, a person who types faster than the program reads, a connection that never
 * asks, and a socket directory someone else prepared. Raw sockets, no attach CLI. The groups of
 * tests run side by side, each with servers of its own. The connection that asks nothing waits
 * out the real 5 s in the heavy layer (test/helpers/layers.ts); npm test has that bound on a fake
 * clock in test/unit/attach/connection-timeout.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { heavyOnly } from '../helpers/layers.js';
import { SERVER } from '../helpers/paths.js';
import { type Harness, startServer } from '../helpers/server.js';
import { screenText } from '../helpers/tool-calls.js';
import { sleep, waitUntil } from '../helpers/wait.js';

const BASH = 'bash --norc --noprofile';

interface Raw {
  socket: Socket;
  lines: () => Record<string, unknown>[];
  closed: () => boolean;
  send(value: unknown): void;
  waitFor(
    predicate: (m: Record<string, unknown>) => boolean,
    what: string,
  ): Promise<Record<string, unknown>>;
}

/**
 * A raw connection, once the server's first line came (its hello, or a refusal). A request sent
 * as an object carries this process's pid and the proof file the hello named, held open, as
 * `agent-tty attach` sends them; a string goes as it is.
 */
function raw(path: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    const received: Record<string, unknown>[] = [];
    let buffer = '';
    let isClosed = false;
    let proofFd: number | undefined;
    const result: Raw = {
      socket,
      lines: () => received,
      closed: () => isClosed,
      send: (value) => {
        if (typeof value === 'string') {
          socket.write(value);
          return;
        }
        const request = value as { type?: string };
        const identity =
          proofFd !== undefined && (request.type === 'list' || request.type === 'attach')
            ? { pid: process.pid, proofFd }
            : {};
        socket.write(`${JSON.stringify({ ...request, ...identity })}\n`);
      },
      async waitFor(predicate, what) {
        await waitUntil(() => received.some(predicate), what);
        return received.find(predicate) as Record<string, unknown>;
      },
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let nl = buffer.indexOf('\n');
      while (nl !== -1) {
        const message = JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>;
        received.push(message);
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf('\n');
        if (message.type === 'hello' && typeof message.proof === 'string') {
          proofFd = openSync(message.proof, constants.O_RDONLY | constants.O_NONBLOCK);
        }
        if (received.length === 1) resolve(result);
      }
    });
    socket.on('close', () => {
      isClosed = true;
      if (proofFd !== undefined) closeSync(proofFd);
      proofFd = undefined;
      resolve(result);
    });
    socket.on('error', () => {
      isClosed = true;
    });
    socket.once('error', reject);
  });
}

/** A raw client attached (not read-only) to `sessionId` at 80x24, once its first frame came. */
async function attachRaw(path: string, sessionId: string): Promise<Raw> {
  const c = await raw(path);
  c.send({ type: 'attach', sessionId, readOnly: false, cols: 80, rows: 24 });
  await c.waitFor((m) => m.type === 'frame', 'a first frame');
  return c;
}

/** What `agent-tty attach` (the listing) prints, stdout and stderr, with this socket directory. */
function attachListing(socketDir: string): string {
  try {
    return execFileSync(process.execPath, [SERVER, 'attach'], {
      env: { ...process.env, AGENT_TTY_SOCKET_DIR: socketDir },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    const e = err as { stdout: string; stderr: string };
    return `${e.stdout}${e.stderr}`;
  }
}

// Side by side: the groups share nothing but the machine.
describe('attach, hostile', { concurrency: true }, () => {
  /**
   * The attacks on one server's socket, in groups that run side by side, each on a server of its
   * own: the connection counts and the refusals; a person typing beside an agent's batches; a
   * watcher stalled through a flood (whose memory is measured on a server that runs nothing else).
   */
  function underAttack(name: string, group: 'connections' | 'typing' | 'flood'): void {
    describe(name, { concurrency: 1 }, () => {
      let h: Harness;
      let dir: string;
      let path: string;
      before(async () => {
        dir = mkdtempSync(join(tmpdir(), 'agent-tty-attach-hostile-'));
        h = await startServer({ env: { AGENT_TTY_SOCKET_DIR: join(dir, 'sockets') } });
        path = join(dir, 'sockets', `${h.pid}.sock`);
        await waitUntil(() => {
          try {
            readFileSync(path);
            return false;
          } catch (err) {
            return (err as NodeJS.ErrnoException).code !== 'ENOENT';
          }
        }, 'the socket');
      });
      after(async () => {
        await h.close();
        rmSync(dir, { recursive: true, force: true });
      });

      if (group === 'connections') {
        it('answers malformed, unknown and out-of-order requests with one error line and closes', async () => {
          for (const [line, reason] of [
            ['not json\n', /not an attach protocol message \(not JSON\)/],
            ['{"type":"exec","command":"id"}\n', /not an attach protocol message/],
            [
              `${JSON.stringify({ type: 'input', data: 'id\r' })}\n`,
              /the first request is "list" or "attach", not "input"/,
            ],
            [
              { type: 'attach', sessionId: 't999', readOnly: false, cols: 80, rows: 24 },
              /no session t999 in agent-tty server/,
            ],
          ] as const) {
            const c = await raw(path);
            c.send(line);
            const end = await c.waitFor(
              (m) => m.type === 'end',
              `an end for ${JSON.stringify(line)}`,
            );
            assert.equal(end.reason, 'error');
            assert.match(String(end.message), reason);
            await waitUntil(c.closed, 'closed');
          }
          assert.equal((await h.call('terminal_list')).isError, false, 'the server serves on');
        });

        it('closes a connection whose line passes the limit, holding no more than the limit', async () => {
          const c = await raw(path);
          const chunk = 'x'.repeat(64 * 1024);
          for (let i = 0; i < 8 && !c.closed(); i++) c.send(chunk);
          const end = await c.waitFor((m) => m.type === 'end', 'an end');
          assert.match(String(end.message), /a message is over the 262144-byte limit/);
          await waitUntil(c.closed, 'closed');
        });

        it('closes a connection that asks nothing within 5 s', { skip: heavyOnly }, async () => {
          const c = await raw(path);
          await sleep(4000);
          assert.equal(c.closed(), false);
          await waitUntil(c.closed, 'closed after the request timeout', 4000);
        });

        it('refuses input on a read-only attachment, whatever the client sends, with one notice', async () => {
          const file = join(dir, 'read-only-received');
          // Records every byte it is sent.
          const { id } = await h.start({
            command: `stty raw -echo; printf R; exec cat > ${file}`,
            login: false,
          });
          await h.waitFor(id, (s) => screenText(s).includes('R'));
          const c = await raw(path);
          c.send({ type: 'attach', sessionId: id, readOnly: true, cols: 80, rows: 24 });
          await c.waitFor((m) => m.type === 'frame', 'a frame');
          for (let i = 0; i < 5; i++) c.send({ type: 'input', data: `breach ${i}\r` });
          const notice = await c.waitFor((m) => m.type === 'notice', 'a notice');
          assert.match(String(notice.message), /read-only/);
          await sleep(300);
          c.send({ type: 'input', data: 'breach later\r' });
          // A resize redraws: once its frame is here, the input before it has been handled.
          const frames = () => c.lines().filter((m) => m.type === 'frame').length;
          const drawn = frames();
          c.send({ type: 'size', cols: 81, rows: 24 });
          await waitUntil(() => frames() > drawn, 'the frame after the resize');
          const notices = c.lines().filter((m) => m.type === 'notice');
          assert.equal(notices.length, 1, `notices for six messages: ${JSON.stringify(notices)}`);
          assert.equal(c.closed(), false, 'the watcher stays attached');
          const reply = await h.call('terminal_snapshot', { sessionId: id, settleMs: 0 });
          assert.equal(reply.data.personTyped, undefined);
          // An attachment that may type gets through, so nothing of the read-only one is on its way.
          const typer = await attachRaw(path, id);
          typer.send({ type: 'input', data: 'typed' });
          await waitUntil(() => readFileSync(file, 'utf8').endsWith('typed'), 'the input typed');
          assert.equal(readFileSync(file, 'utf8'), 'typed', 'the program got only what was typed');
          c.socket.destroy();
          typer.socket.destroy();
          await h.call('terminal_close', { sessionId: id });
        });

        it('refuses an input message over 16 KiB, sending none of it; one of 16 KiB goes through', async () => {
          const file = join(dir, 'input-received');
          const { id } = await h.start({
            command: `stty raw -echo; printf R; exec cat > ${file}`,
            login: false,
          });
          await h.waitFor(id, (s) => screenText(s).includes('R'));
          const c = await attachRaw(path, id);
          const limit = 16 * 1024;
          c.send({ type: 'input', data: 'a'.repeat(limit) });
          await waitUntil(() => readFileSync(file, 'utf8').length === limit, 'the 16 KiB received');
          c.send({ type: 'input', data: 'b'.repeat(limit + 1) });
          const end = await c.waitFor((m) => m.type === 'end', 'an end');
          assert.equal(end.reason, 'error');
          assert.match(String(end.message), /not an attach protocol message \(.*16384/);
          await waitUntil(c.closed, 'closed');
          await h.call('terminal_list');
          assert.equal(
            readFileSync(file, 'utf8'),
            'a'.repeat(limit),
            'nothing of the refused message',
          );
          await h.call('terminal_close', { sessionId: id });
        });

        it('takes 32 connections at once, tells each one past them why in a line, and serves again when they go', async () => {
          const idle = await Promise.all(
            Array.from({ length: 40 }, () => raw(path).catch(() => undefined)),
          );
          await waitUntil(
            () => idle.filter((c) => c?.closed()).length >= 8,
            'the connections past the limit closed',
          );
          await sleep(300);
          const open = idle.filter((c) => c && !c.closed());
          assert.equal(open.length, 32, `${open.length} connections stayed open`);
          const refused = idle.filter((c) => c?.closed());
          assert.equal(refused.length, 8);
          for (const c of refused) {
            assert.deepEqual(c?.lines(), [
              {
                type: 'end',
                reason: 'error',
                message: `agent-tty server ${h.pid} has 32 attach connections open, its limit; detach one and try again`,
              },
            ]);
          }
          // A person listing meanwhile is told the same, not shown an empty machine.
          const listing = attachListing(join(dir, 'sockets'));
          assert.match(
            listing,
            new RegExp(`server ${h.pid}: not listed: .*32 attach connections open, its limit`),
          );
          assert.equal((await h.call('terminal_list')).isError, false);
          for (const c of idle) c?.socket.destroy();
          await sleep(100);
          const c = await raw(path);
          c.send({ type: 'list' });
          const listed = await c.waitFor((m) => m.type === 'server', 'a listing');
          assert.equal(listed.pid, h.pid);
        });

        it('serves on with 70 idle connections: 32 held, the rest refused or dropped, none kept', {
          skip: process.platform === 'linux' ? false : 'reads /proc',
        }, async (t) => {
          // The server's end of each connection it holds is listed under the socket's path.
          const held = () =>
            readFileSync('/proc/net/unix', 'utf8')
              .split('\n')
              .filter((line) => line.endsWith(` ${path}`)).length - 1;
          await waitUntil(() => held() === 0, 'the connections of earlier tests closed');
          const idle = await Promise.all(
            Array.from({ length: 70 }, () => raw(path).catch(() => undefined)),
          );
          const gone = () => idle.filter((c) => c === undefined || c.closed());
          await waitUntil(() => gone().length >= 38, 'the connections past the limit closed');
          await waitUntil(() => held() === 32, '32 connections held by the server');
          assert.equal(idle.length - gone().length, 32, 'connections open');
          // Refused with the line (at most 32 such refusals at once) or closed without one.
          const line = {
            type: 'end',
            reason: 'error',
            message: `agent-tty server ${h.pid} has 32 attach connections open, its limit; detach one and try again`,
          };
          const told = gone().filter((c) => c !== undefined && c.lines().length > 0);
          for (const c of told) assert.deepEqual(c?.lines(), [line]);
          assert.ok(told.length >= 1, 'a refusal says why');
          t.diagnostic(
            `${told.length} of ${gone().length} refused with the line, the rest dropped`,
          );
          assert.equal(
            (await h.call('terminal_list')).isError,
            false,
            'the tools answer meanwhile',
          );
          for (const c of idle) c?.socket.destroy();
          await waitUntil(() => held() === 0, 'the server keeps no connection');
          const c = await raw(path);
          c.send({ type: 'list' });
          assert.equal((await c.waitFor((m) => m.type === 'server', 'a listing')).pid, h.pid);
        });

        it('does not let a person queue more input than the program reads', async () => {
          // Raw mode: the terminal holds what it took instead of dropping a canonical line past 4 KiB,
          // so the unread input stays unread.
          const { id } = await h.start({
            command: 'stty raw -echo; printf R; sleep 30',
            cols: 80,
            rows: 24,
            login: false,
          });
          await h.waitFor(id, (s) => screenText(s).includes('R'));
          const c = await attachRaw(path, id);
          const piece = 'y'.repeat(16 * 1024);
          for (let i = 0; i < 160; i++) c.send({ type: 'input', data: piece });
          const notice = await c.waitFor((m) => m.type === 'notice', 'a notice');
          assert.match(String(notice.message), /not sent: the program has not read/);
          const reply = await h.call('terminal_input', {
            sessionId: id,
            actions: [{ type: 'text', text: 'z'.repeat(64 * 1024) }],
          });
          assert.equal(reply.data.error?.code, 'INPUT_BACKLOG', 'the limit is the same for both');
          // One notice each time input stops going through, not one per refused message (about 90).
          const notices = c.lines().filter((m) => m.type === 'notice').length;
          assert.ok(notices <= 10, `${notices} notices for 160 messages`);
          c.socket.destroy();
          await h.call('terminal_close', { sessionId: id });
        });
      } else if (group === 'typing') {
        it("never puts a person's keystrokes between the actions of an agent's batch", async () => {
          const file = join(dir, 'received');
          // Records every byte it is sent, while output floods the screen, so the agent's batch
          // waits for the screen between its actions, the window where a person's keystroke could land.
          const command = `stty raw -echo; (while :; do printf '%0200d\\n' 0; done) & exec cat > ${file}`;
          const { id } = await h.start({ command, login: false, settleMs: 0 });
          const c = await attachRaw(path, id);
          const person = setInterval(() => c.send({ type: 'input', data: 'p' }), 1);
          const batches: string[] = [];
          try {
            for (let b = 0; b < 5; b++) {
              const actions: Record<string, unknown>[] = [];
              let expected = '';
              for (let i = 0; i < 128; i++) {
                actions.push({ type: 'text', text: `${b}.${i};` }, { type: 'key', key: 'Enter' });
                expected += `${b}.${i};\r`;
              }
              const sent = await h.input(id, actions, { settleMs: 0 });
              assert.equal(sent.isError, false, sent.text);
              batches.push(expected);
            }
          } finally {
            clearInterval(person);
          }
          // At a wait of the batch, what the person types goes through at once.
          const waiting = h.input(
            id,
            [
              { type: 'text', text: '<q>' },
              { type: 'wait', durationMs: 2000 },
              { type: 'text', text: '<r>' },
            ],
            { settleMs: 0 },
          );
          await waitUntil(
            () => readFileSync(file, 'utf8').endsWith('<q>'),
            'the batch at its wait',
          );
          c.send({ type: 'input', data: 'W' });
          await waitUntil(() => readFileSync(file, 'utf8').endsWith('<q>W'), 'the person mid-wait');
          assert.equal((await waiting).isError, false);
          c.send({ type: 'input', data: 'END' });
          await waitUntil(
            () => readFileSync(file, 'utf8').endsWith('<r>END'),
            'everything received',
          );
          const received = readFileSync(file, 'utf8');
          assert.ok(received.includes('p'), 'the person typed meanwhile');
          for (const expected of batches) {
            const start = received.indexOf(expected.slice(0, expected.indexOf(';') + 1));
            assert.ok(
              received.includes(expected),
              `the batch arrived whole: ${JSON.stringify(received.slice(start, start + 300).replace(/p+/g, '<p>'))}`,
            );
          }
          c.socket.destroy();
          await h.call('terminal_close', { sessionId: id });
        });

        it('keeps the room a running batch has claimed: a person typing during its wait cannot take it', async () => {
          const MIB = 1024 * 1024;
          const { id } = await h.start({
            command: 'stty raw -echo; printf R; sleep 30',
            login: false,
          });
          await h.waitFor(id, (s) => screenText(s).includes('R'));
          const c = await attachRaw(path, id);
          // The batch is checked (1000 KiB fits) before its wait; the person types during the wait.
          const batch = h.input(
            id,
            [
              { type: 'wait', durationMs: 1500 },
              { type: 'text', text: 'a'.repeat(1000 * 1024) },
            ],
            { settleMs: 0 },
          );
          await sleep(300);
          const piece = 'p'.repeat(16 * 1024);
          for (let i = 0; i < 70; i++) c.send({ type: 'input', data: piece });
          const notice = await c.waitFor((m) => m.type === 'notice', 'a notice');
          assert.match(String(notice.message), /not sent: the program has not read/);
          assert.equal((await batch).isError, false, 'the batch sends what it was checked for');
          const next = await h.input(id, [{ type: 'text', text: 'b'.repeat(64 * 1024) }]);
          assert.equal(next.data.error?.code, 'INPUT_BACKLOG');
          const pending = next.data.error?.details.pendingBytes as number;
          assert.ok(pending <= MIB, `${pending} bytes unread, over the ${MIB}-byte limit`);
          c.socket.destroy();
          await h.call('terminal_close', { sessionId: id });
        });
      } else {
        it('holds one frame for a watcher that stops reading while the program floods, then shows the screen as it is', async () => {
          const { id } = await h.start({ command: BASH, cols: 80, rows: 24, login: false });
          const c = await attachRaw(path, id);
          c.socket.pause();
          const rss = () =>
            Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${h.pid}/status`, 'utf8'))?.[1]) *
            1024;
          const before = process.platform === 'linux' ? rss() : 0;
          // About 4 s of changing screen: without the bound, some 200 frames of 3-4 KB would wait.
          await h.input(id, [
            {
              type: 'text',
              text: 'end=$((SECONDS+4)); while [ $SECONDS -lt $end ]; do echo "line $RANDOM"; done; echo FLOOD-DONE\r',
            },
            { type: 'wait', pattern: '^FLOOD-DONE$', timeoutMs: 60_000 },
          ]);
          if (process.platform === 'linux') {
            const grown = rss() - before;
            assert.ok(
              grown < 64 * 1024 * 1024,
              `the server grew by ${grown} bytes with a stalled watcher`,
            );
          }
          let bytes = 0;
          c.socket.on('data', (chunk: string) => {
            bytes += chunk.length;
          });
          c.socket.resume();
          await waitUntil(
            () =>
              c.lines().some((m) => m.type === 'frame' && String(m.data).includes('FLOOD-DONE')),
            'a frame with the final screen',
            10_000,
          );
          // What waited: the kernel's socket buffer and one frame, not the whole flood's frames.
          assert.ok(bytes < 512 * 1024, `${bytes} bytes of frames waited for the watcher`);
          c.socket.destroy();
          await h.call('terminal_close', { sessionId: id });
        });
      }
    });
  }

  underAttack('the attach socket under attack: connections and requests', 'connections');
  underAttack('the attach socket under attack: a person typing beside the agent', 'typing');
  underAttack('the attach socket under attack: a watcher that stops reading', 'flood');

  /**
   * Starts a server with `options`, waits for its warning that attach is off, checks that the tools
   * still work, runs `check` on it, and closes it.
   */
  async function withAttachOff(
    options: Parameters<typeof startServer>[0],
    check: (h: Harness) => void | Promise<void>,
  ): Promise<void> {
    const h = await startServer(options);
    try {
      await waitUntil(
        () => /agent-tty attach is off for this server/.test(h.stderr()),
        'the warning',
      );
      assert.equal((await h.call('terminal_list')).isError, false, 'the tools work');
      await check(h);
    } finally {
      await h.close();
    }
  }

  describe('a socket directory someone else prepared', { concurrency: 1 }, () => {
    it('refuses a directory too long for a socket path, rather than listen where the system cuts it', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'agent-tty-attach-long-'));
      try {
        const long = join(dir, 'd'.repeat(Math.max(1, 110 - dir.length)));
        await withAttachOff({ env: { AGENT_TTY_SOCKET_DIR: long } }, (h) => {
          assert.match(h.stderr(), /is too long for a socket path/);
          // Nothing listens anywhere: not in the directory, not at the path cut short.
          const socketFile = join(long, `${h.pid}.sock`);
          const cut = Buffer.from(socketFile).subarray(0, process.platform === 'linux' ? 107 : 103);
          assert.deepEqual(readdirSync(dir), [], `nothing was created in ${dir}`);
          assert.equal(existsSync(cut.toString()), false);
          assert.match(attachListing(long), /is too long for a socket path/);
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('refuses a relative directory, which would name another directory for a person elsewhere', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'agent-tty-attach-relative-'));
      try {
        await withAttachOff({ env: { AGENT_TTY_SOCKET_DIR: 'sockets' }, cwd: dir }, (h) => {
          assert.match(h.stderr(), /the socket directory sockets is a relative path/);
          assert.deepEqual(readdirSync(dir), [], `nothing was created in the server's ${dir}`);
          assert.match(attachListing('sockets'), /is a relative path.*set AGENT_TTY_SOCKET_DIR/);
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('turns attach off (the tools work) and attach says why', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'agent-tty-attach-planted-'));
      try {
        const open = join(dir, 'open');
        mkdirSync(open);
        chmodSync(open, 0o777);
        const link = join(dir, 'link');
        mkdirSync(join(dir, 'target'), { mode: 0o700 });
        symlinkSync(join(dir, 'target'), link);
        for (const [socketDir, why] of [
          [open, /has mode 0777, open to other users/],
          [link, /is a symbolic link, which agent-tty never follows/],
        ] as const) {
          await withAttachOff({ env: { AGENT_TTY_SOCKET_DIR: socketDir } }, async (h) => {
            assert.match(h.stderr(), why);
            const { id } = await h.start({ command: BASH, cols: 80, rows: 24, login: false });
            const list = await h.call('terminal_list');
            assert.equal(list.data.sessions?.[0]?.attach, undefined, 'no attach command to give');
            await h.call('terminal_close', { sessionId: id });
            assert.match(attachListing(socketDir), why);
          });
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
