/**
 * A password typed at a prompt that turns echo off, by the agent (terminal_input) or by a person
 * (agent-tty attach), is in no result, not in the server's log at debug level, not in what the
 * person's terminal is sent, and not in the session's private directories (its shell history and
 * start-up files). Contract: spec/attach.md (Passwords), spec/tools.md (Shell history).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Harness, startServer } from '../helpers/server.js';
import type { ToolReply } from '../helpers/tool-calls.js';
import { waitUntil } from '../helpers/wait.js';
import { openWatcher, type WatcherTerminal } from '../helpers/watcher.js';

/** Every file under `dir`, with its contents. */
function filesUnder(dir: string): { path: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [{ path, text: readFileSync(path, 'latin1') }] : [];
  });
}

describe('passwords', () => {
  let h: Harness;
  let dir: string;
  /** The server's temporary directory, where the sessions' private directories go. */
  let tmp: string;
  let env: Record<string, string>;
  let w: WatcherTerminal | undefined;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-tty-passwords-'));
    tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    mkdirSync(join(dir, 'home'));
    env = { AGENT_TTY_SOCKET_DIR: join(dir, 'sockets'), TMPDIR: tmp };
    h = await startServer({ args: ['--log-level', 'debug'], env });
    await waitUntil(() => {
      try {
        return statSync(join(dir, 'sockets', `${h.pid}.sock`)).isSocket();
      } catch {
        return false;
      }
    }, 'the attach socket');
  });
  after(async () => {
    w?.kill();
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('typed by the agent or a person, are in no result, log, frame or private file', async () => {
    const agentPassword = `agent-pw-${randomBytes(6).toString('hex')}`;
    const personPassword = `person-pw-${randomBytes(6).toString('hex')}`;
    const replies: ToolReply[] = [];
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      const reply = await h.call(name, args);
      replies.push(reply);
      return reply;
    };
    // An interactive bash: a history file and start-up files of its own.
    const started = await call('terminal_start', {
      shell: 'bash',
      login: false,
      env: { HOME: join(dir, 'home') },
    });
    const id = started.data.sessionId as string;
    w = openWatcher([id], { env, cols: 80, rows: 25 });
    await w.waitForText(/[$#]$/m);
    const asked = await call('terminal_input', {
      sessionId: id,
      actions: [
        { type: 'text', text: `read -rs -p 'Password: ' PW; echo "agent typed \${#PW}"\r` },
        { type: 'wait', pattern: '^Password:' },
        { type: 'text', text: `${agentPassword}\r` },
        { type: 'wait', pattern: 'agent typed \\d+$' },
        { type: 'text', text: `read -rs -p 'Secret: ' S; echo "person typed \${#S}"\r` },
        { type: 'wait', pattern: '^Secret:' },
      ],
    });
    assert.equal(asked.isError, false, asked.text);
    await w.waitForText(/^Secret:/m);
    w.type(`${personPassword}\r`);
    const answered = await call('terminal_input', {
      sessionId: id,
      actions: [
        { type: 'wait', pattern: 'person typed \\d+$' },
        // The shell writes its history now, as it would at exit.
        { type: 'text', text: 'history -a\r' },
        { type: 'wait', command: true },
      ],
    });
    assert.equal(answered.isError, false, answered.text);
    const shown = await call('terminal_snapshot', { sessionId: id, historySince: 0 });
    assert.match(
      JSON.stringify(shown.data.snapshot?.screen),
      new RegExp(`agent typed ${agentPassword.length}.*person typed ${personPassword.length}`),
      'both were read',
    );
    for (const text of [agentPassword, personPassword]) {
      const found = await call('terminal_snapshot', { sessionId: id, find: { text, history: 0 } });
      assert.deepEqual(found.data.snapshot?.matches, []);
    }
    await call('terminal_list');
    const files = filesUnder(tmp).filter(({ path }) =>
      /\/agent-tty-(history|shell)-[^/]+\//.test(path),
    );
    const history = files.find(({ path }) => /agent-tty-history-/.test(path));
    assert.match(history?.text ?? '', /read -rs -p 'Password: ' PW/, 'the history was written');
    // The shell's start-up files are gone once its first prompt came (their nonce with them).
    assert.ok(
      !files.some(({ path }) => /agent-tty-shell-/.test(path)),
      'start-up files are removed at the first prompt',
    );
    w.type('\x1c');
    assert.equal(await w.exited, 0);
    await call('terminal_close', { sessionId: id });
    const places: [string, string][] = [
      ...replies.map((r, i): [string, string] => [`result ${i}`, JSON.stringify(r.result)]),
      ['the debug log', h.stderr()],
      ["what the person's terminal was sent", w.output()],
      ...files.map(({ path, text }): [string, string] => [path, text]),
    ];
    for (const [where, text] of places) {
      for (const password of [agentPassword, personPassword]) {
        assert.equal(text.includes(password), false, `${where} holds ${password}`);
      }
    }
    assert.match(h.stderr(), /agent-tty info: ready/, 'the server did log');
    assert.deepEqual(
      readdirSync(tmp).filter((n) => n.startsWith('agent-tty-')),
      [],
      'the private directories went with the session',
    );
  });
});
