/**
 * Who may attach: a person at their own terminal, not a program running in one of the agent's
 * sessions. From a shell in a session, programs try to type into another session and into their
 * own: `agent-tty attach` itself, a client that shows no process, one that shows its own pid, one
 * that claims the pid of a process outside, one that left the process tree. None gets its bytes
 * to a program, and no result says a person typed; a person attaching from a terminal outside
 * (node-pty, as in the other attach tests) still types. The tests run side by side, each on
 * sessions of its own.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FIXTURES, SERVER } from '../helpers/paths.js';
import { type Harness, startServer } from '../helpers/server.js';
import { type Snapshot, screenText, type ToolReply } from '../helpers/tool-calls.js';
import { sleep, waitUntil } from '../helpers/wait.js';
import { openWatcher } from '../helpers/watcher.js';

const BASH = 'bash --norc --noprofile';
const CLIENT = join(FIXTURES, 'attach-client.mjs');
const onLinux = process.platform === 'linux' ? false : 'the check needs /proc (Linux)';

// Side by side: each test has sessions of its own, and its programs mostly start and wait.
describe('who may attach', { skip: onLinux, concurrency: true }, () => {
  let h: Harness;
  let dir: string;
  let env: Record<string, string>;
  let socket: string;
  /** Whether any result for a session said a person typed. */
  const personTyped = new Map<string, boolean>();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-tty-attach-peers-'));
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
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function note(id: string, reply: ToolReply): ToolReply {
    if (reply.data.personTyped === true) personTyped.set(id, true);
    return reply;
  }

  /** A session whose program writes every byte it receives to a file. */
  async function recorder(name: string): Promise<{ id: string; received: () => string }> {
    const file = join(dir, name);
    // R once the terminal is raw: from then on, every byte it is sent goes to the file.
    const { id } = await h.start({
      command: `stty raw -echo; printf R; exec cat > ${file}`,
      login: false,
    });
    await h.waitFor(id, (s) => screenText(s).includes('R'));
    return {
      id,
      received: () => {
        try {
          return readFileSync(file, 'utf8');
        } catch {
          return '';
        }
      },
    };
  }

  /** A shell in a session, with the socket directory in its environment. */
  async function shell(): Promise<string> {
    const { id } = await h.start({ command: BASH, login: false, env, cols: 200, rows: 30 });
    await h.input(id, [{ type: 'text', text: "PS1='$ '\r" }]);
    return id;
  }

  /** Types `command` in shell `id`; its screen once it shows `pattern`, or after `waitMs`. */
  async function type(id: string, command: string, pattern: RegExp, waitMs = 15_000) {
    note(id, await h.input(id, [{ type: 'text', text: `${command}\r` }]));
    let text = '';
    const deadline = Date.now() + waitMs;
    while (!pattern.test(text) && Date.now() < deadline) {
      const reply = note(id, await h.call('terminal_snapshot', { sessionId: id, settleMs: 50 }));
      text = screenText(reply.data.snapshot as Snapshot);
    }
    return text;
  }

  /** Types `command` in shell `id` and waits for its output matching `pattern`. */
  async function run(id: string, command: string, pattern: RegExp): Promise<string> {
    const text = await type(id, command, pattern);
    assert.match(text, pattern, `session ${id} shows ${pattern}`);
    return text;
  }

  it('refuses `agent-tty attach` run in a session: it cannot type into another session', async () => {
    const victim = await recorder('victim-cli');
    const inside = await shell();
    const text = await type(
      inside,
      `${process.execPath} ${SERVER} attach ${victim.id}; echo "attach-exit=$?"`,
      /attach-exit=\d/,
      5000,
    );
    // Were it attached, what the agent types next would reach the victim through it.
    note(inside, await h.input(inside, [{ type: 'text', text: 'pwned-through-attach\r' }]));
    await sleep(500);
    assert.equal(victim.received(), '', 'nothing reached the victim');
    note(victim.id, await h.call('terminal_snapshot', { sessionId: victim.id, settleMs: 0 }));
    assert.equal(personTyped.get(victim.id), undefined, 'no result said a person typed');
    assert.match(
      text,
      new RegExp(
        `refused: process \\d+ runs in session ${inside} of this agent-tty server; agent-tty attach is for a person at their own terminal`,
      ),
    );
    assert.match(text, /attach-exit=1/);
    const listing = await run(
      inside,
      `clear; ${process.execPath} ${SERVER} attach`,
      /attach with:/,
    );
    assert.match(
      listing,
      new RegExp(`server ${h.pid}: not listed: refused: process \\d+ runs in session ${inside} of`),
    );
  });

  it('refuses a program in a session that types into its own session', async () => {
    const inside = await shell();
    const text = await run(
      inside,
      `${process.execPath} ${CLIENT} ${socket} ${inside} plain 'echo self-typed\\r'`,
      /^(ATTACHED|END: .*)$/m,
    );
    await sleep(1000);
    const after = note(inside, await h.call('terminal_snapshot', { sessionId: inside }));
    assert.equal(personTyped.get(inside), undefined, 'no result said a person typed');
    assert.doesNotMatch(screenText(after.data.snapshot as Snapshot), /^self-typed$/m);
    assert.match(text, /END: refused: this connection did not show which process it comes from/);
  });

  it('refuses each way a program in a session can show itself, and still lets a person outside type', async () => {
    const victim = await recorder('victim-raw');
    const inside = await shell();
    const cases: [string, RegExp][] = [
      ['plain', /did not show which process it comes from/],
      ['honest', new RegExp(`process \\d+ runs in session ${inside} of this agent-tty server`)],
      // The test runner is outside every session, but does not hold the proof file.
      [
        `forge:${process.pid}`,
        new RegExp(`did not show that it comes from process ${process.pid}`),
      ],
      // The server holds the proof file too.
      ['server', new RegExp(`did not show that it comes from process ${h.pid}`)],
      // Left behind by its parent, it is still in the session's terminal session.
      ['orphan', new RegExp(`process \\d+ runs in session ${inside} of this agent-tty server`)],
    ];
    for (const [mode, why] of cases) {
      const text = await run(
        inside,
        `clear; ${process.execPath} ${CLIENT} ${socket} ${victim.id} ${mode} 'typed-by-${mode}\\r'`,
        // The orphan prints after the shell's prompt is back.
        /(ATTACHED|END: .*)$/m,
      );
      assert.match(text, /END: refused: /, mode);
      assert.match(text, why, mode);
    }
    await sleep(500);
    assert.equal(victim.received(), '', 'no program in a session got its bytes to the victim');
    note(victim.id, await h.call('terminal_snapshot', { sessionId: victim.id, settleMs: 0 }));
    assert.equal(personTyped.get(victim.id), undefined);

    const person = openWatcher([victim.id], { env, cols: 80, rows: 24 });
    try {
      await waitUntil(() => person.output().includes('\x1b[?2026h'), 'a first frame');
      person.type('typed-by-person');
      await waitUntil(() => victim.received() === 'typed-by-person', 'the person typed');
      const reply = await h.call('terminal_snapshot', { sessionId: victim.id, settleMs: 0 });
      assert.equal(reply.data.personTyped, true);
      person.type('\x1c');
      assert.equal(await person.exited, 0);
    } finally {
      person.kill();
    }
  });
});
