/**
 * Issue 7, "Unbreakable": hostile output. Screen text never carries raw control or
 * bidirectional-override characters; clipboard, title, hyperlink and other host-reaching
 * sequences have no effect on the host; environment values never reach the logs. (Probe
 * replies: hostile-probes.test.ts.) The tests run side by side, each on sessions or a server of
 * its own.
 */
import assert from 'node:assert/strict';
import { readlinkSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { childPids } from '../helpers/processes.js';
import { fixtureCommand, needsPython, python } from '../helpers/programs.js';
import { type RawRpcServer, startRawRpcServer } from '../helpers/raw-rpc.js';
import { type Harness, startServer } from '../helpers/server.js';
import { type Snapshot, type Structured, screenText } from '../helpers/tool-calls.js';

/** Code points spec/tools.md says never reach a reader raw, as inclusive ranges. */
const HIDDEN_RANGES: [number, number][] = [
  [0x00, 0x09], // C0 (newline aside: it separates the rows of the readable text)
  [0x0b, 0x1f],
  [0x7f, 0x9f], // DEL, C1
  [0x061c, 0x061c], // bidirectional controls
  [0x200e, 0x200f],
  [0x202a, 0x202e],
  [0x2066, 0x2069],
  [0x200b, 0x200b], // invisible format characters
  [0x2028, 0x2029],
  [0x2060, 0x2064],
  [0xfeff, 0xfeff],
  [0xe0000, 0xe007f], // tags
];

function assertSafe(text: string, where: string): void {
  assert.equal(text.isWellFormed(), true, `${where}: a lone surrogate`);
  for (const char of text) {
    const cp = char.codePointAt(0) as number;
    const hidden = HIDDEN_RANGES.some(([from, to]) => cp >= from && cp <= to);
    assert.equal(hidden, false, `${where}: raw U+${cp.toString(16).padStart(4, '0')}`);
  }
}

const R = '\uFFFD';
/** hostile.py's LINES by name, as a reader must see them. */
const SHOWN: [string, string][] = [
  ['bidi', `a${R}b${R}c${R}d${R}e${R}f`],
  ['isolates', `a${R}b${R}c${R}d${R}e`],
  ['marks', `a${R}b${R}c${R}d`],
  ['zero-width', `a${R}b${R}c${R}d${R}e${R}f${R}g`],
  ['separators', `a${R}b${R}c`],
  ['tags', `a${R}b${R}c${R}d`],
  ['bom', 'ab'], // the emulator's UTF-8 decoder drops U+FEFF before it reaches a cell
  // C0, C1, DEL and malformed UTF-8 are executed or dropped by the emulator: never in a cell.
  ['c0', 'abcdefghijklmnopqrstu'],
  ['bell-shift', 'abcd'],
  ['c1-utf8', 'abcde'],
  ['c1-raw', 'abcdef'],
  ['del', 'ab'],
  ['surrogate', 'abc'],
  ['overlong', 'abc'],
];
const LINES = SHOWN.map(([name, shown]) => `${name}|${shown}`);

// Side by side: each test has sessions or a server of its own.
describe('hostile', { concurrency: true }, () => {
  describe('hostile output', { skip: needsPython }, () => {
    let h: Harness;
    before(async () => {
      h = await startServer();
    });
    after(() => h.close());

    it('shows hidden and control characters as stand-ins, on screen, in history and in text', async () => {
      const rows = LINES.length + 1;
      const command = fixtureCommand('hostile.py', 'text', '5');
      const { id } = await h.start({ command, login: false, cols: 60, rows });
      await h.waitFor(id, (s) => s.screen[rows - 1] === 'END');
      const reply = await h.call('terminal_snapshot', { sessionId: id, scrollbackLines: 100 });
      const s = reply.data.snapshot as Snapshot;
      assert.deepEqual(s.screen, [...LINES, 'END']);
      assert.deepEqual(s.scrollback?.lines, [
        ...LINES,
        ...[0, 1, 2, 3, 4].map((i) => `filler ${i}`),
      ]);
      for (const line of [...s.screen, ...(s.scrollback?.lines ?? [])]) assertSafe(line, line);
      assertSafe(reply.text, 'readable text');
      for (const line of LINES)
        assert.match(reply.text, new RegExp(`│${line.replace('|', '\\|')}$`, 'm'));
      await h.call('terminal_close', { sessionId: id });
    });

    it('hides concealed text in history as it does on screen', async () => {
      const command = "printf 'pw: \\033[8mhunter2\\033[28m shown\\n1\\n2\\n3\\n4'; sleep 60";
      const { id } = await h.start({ command, login: false, cols: 40, rows: 4 });
      const s = await h.waitFor(id, (x) => x.screen[3] === '4');
      const history = await h.snapshot(id, { scrollbackLines: 10 });
      await h.call('terminal_close', { sessionId: id });
      assert.deepEqual(s.screen.slice(0, 1), ['1']);
      assert.deepEqual(history.scrollback?.lines, ['pw:         shown']);
    });

    it('reports a hostile title sanitized', async () => {
      const { id } = await h.start({ command: fixtureCommand('hostile.py', 'osc'), login: false });
      const s = await h.waitFor(id, (x) => /END/.test(screenText(x)));
      const reply = await h.call('terminal_snapshot', { sessionId: id });
      await h.call('terminal_close', { sessionId: id });
      assert.equal(s.title, `title ${R}evil${R}x${R}y${R}z`);
      assertSafe(reply.text, 'readable text');
    });

    it('keeps a session readable when its program sets a 5 MiB title', async () => {
      const script =
        'import os,time; os.write(1, b"\\x1b]2;" + b"T" * 5242880 + b"\\x07hello"); time.sleep(60)';
      const { id } = await h.start({
        command: `${python()} -c '${script}'`,
        login: false,
        cols: 40,
        rows: 4,
      });
      // hello comes after the title: once it shows, the 5 MiB have been read.
      await h.waitFor(id, (s) => s.screen[0] === 'hello', 30_000);
      const reply = await h.call('terminal_snapshot', { sessionId: id });
      await h.call('terminal_close', { sessionId: id });
      assert.equal(reply.isError, false, reply.text.slice(0, 200));
      assert.equal(reply.data.snapshot?.screen[0], 'hello');
      assert.ok(JSON.stringify(reply.result).length < 1024 * 1024, 'a bounded result');
    });
  });

  async function callRaw(server: RawRpcServer, name: string, args: Record<string, unknown> = {}) {
    const result = await server.tool(name, args);
    return result.structuredContent as Structured;
  }

  async function waitRaw(server: RawRpcServer, id: string, until: (s: Snapshot) => boolean) {
    for (let i = 0; i < 100; i++) {
      const s = (await callRaw(server, 'terminal_snapshot', { sessionId: id, settleMs: 50 }))
        .snapshot as Snapshot;
      if (until(s)) return s;
    }
    throw new Error(`session ${id} never reached the expected screen`);
  }

  /**
   * What a fresh session sees of the server's environment and directory, as one hash; HISTFILE
   * is left out, since every session gets a history file of its own.
   */
  async function inheritedState(server: RawRpcServer): Promise<string> {
    const command = "env | grep -v '^HISTFILE=' | sort | sha256sum; pwd";
    const started = await callRaw(server, 'terminal_start', { command, login: false });
    const id = started.sessionId as string;
    const s = await waitRaw(server, id, (x) => x.status === 'exited');
    await callRaw(server, 'terminal_close', { sessionId: id });
    return screenText(s);
  }

  describe('host side effects', {
    skip: process.platform === 'linux' ? needsPython : 'reads /proc',
  }, () => {
    it('lets no clipboard, title, hyperlink, notification or passthrough sequence reach the host', async () => {
      const server = await startRawRpcServer();
      const pid = server.child.pid as number;
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      server.child.stdout.on('data', (c: Buffer) => stdout.push(c));
      server.child.stderr.on('data', (c: Buffer) => stderr.push(c));
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      const inherited = await inheritedState(server);

      const command = fixtureCommand('hostile.py', 'osc');
      const started = await callRaw(server, 'terminal_start', { command, login: false });
      const id = started.sessionId as string;
      const s = await waitRaw(server, id, (x) => /END/.test(screenText(x)));
      assert.deepEqual(s.screen.slice(0, 2), ['click me', 'END']);
      const leader = (await callRaw(server, 'terminal_list')).sessions?.[0]?.pid;
      assert.deepEqual(childPids(pid), [leader], 'no clipboard or notification helper was run');
      assert.equal(await inheritedState(server), inherited, 'environment and directory unchanged');
      assert.equal(readlinkSync(`/proc/${pid}/cwd`), cwd);
      await callRaw(server, 'terminal_close', { sessionId: id });

      server.child.stdin.end();
      await server.exited(performance.now());
      const out = Buffer.concat(stdout);
      for (const byte of [0x1b, 0x07, 0x9b, 0x9d]) {
        assert.equal(out.indexOf(byte), -1, `stdout carries byte ${byte.toString(16)}`);
      }
      for (const line of out
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== '')) {
        assert.equal(JSON.parse(line).jsonrpc, '2.0', 'stdout is JSON-RPC only');
      }
      assert.equal(Buffer.concat(stderr).indexOf(0x1b), -1, 'stderr carries no escape sequence');
    });
  });

  describe('logs', () => {
    it('never show environment values, even at debug level and on errors', async () => {
      const serverSecret = `server-secret-${process.pid}-${Date.now()}`;
      const sessionSecret = `session-secret-${process.pid}-${Date.now()}`;
      const h = await startServer({
        args: ['--log-level', 'debug'],
        env: { AGENT_TTY_TEST_SECRET: serverSecret },
      });
      try {
        const env = { SESSION_SECRET: sessionSecret };
        const { id } = await h.start({ shell: '/bin/sh', login: false, env, rows: 10 });
        await h.input(id, [
          { type: 'text', text: 'echo "$SESSION_SECRET $AGENT_TTY_TEST_SECRET"; env | sort' },
          { type: 'key', key: 'Enter' },
        ]);
        const shown = await h.snapshot(id, { scrollbackLines: 200 });
        const everything = [...(shown.scrollback?.lines ?? []), ...shown.screen].join('\n');
        assert.ok(everything.includes(`${sessionSecret} ${serverSecret}`), 'the program had both');
        const failures: Record<string, unknown>[] = [
          { command: 'true', env, cwd: '/nonexistent-dir' },
          { command: 'true', env, shell: '/nonexistent/sh' },
          { command: 'true', env: { PATH: sessionSecret }, shell: 'sh' },
          { command: 'true', env: { X: `${sessionSecret}\u0000` } },
        ];
        for (const args of failures) {
          assert.equal((await h.call('terminal_start', args)).isError, true);
        }
        await h.input(id, [{ type: 'key', key: 'NoSuchKey' }]);
        await h.call('terminal_resize', { sessionId: id, cols: 50, rows: 12 });
        await h.call('terminal_list');
        await h.call('terminal_close', { sessionId: id });
      } finally {
        await h.close();
      }
      const stderr = h.stderr();
      assert.match(stderr, /ready/, 'the server did log');
      assert.equal(stderr.includes(sessionSecret), false, 'a session secret in the log');
      assert.equal(stderr.includes(serverSecret), false, 'a server secret in the log');
    });
  });
});
