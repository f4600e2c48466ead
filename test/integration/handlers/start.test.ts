/**
 * terminal_start through createServer on an in-memory MCP connection (real PTYs and programs):
 * the exact shape of its results, success and failure. Contract: spec/tools.md, spec/errors.md.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type InMemoryServer, startInMemoryServer } from '../../helpers/in-memory-server.js';
import { assertToolError } from '../../helpers/tool-calls.js';

const SH = { shell: '/bin/sh', login: false };
const T = { timeout: 30_000 };

describe('terminal_start handler', () => {
  let s: InMemoryServer;
  before(async () => {
    s = await startInMemoryServer();
  });
  after(async () => {
    assert.deepEqual(await s.close(), [], 'no process of any session is left');
  });

  it('returns the session id and a snapshot with one string per screen row', T, async () => {
    const reply = await s.call('terminal_start', {
      command: 'echo ready; exec cat',
      ...SH,
      cols: 30,
      rows: 4,
    });
    assert.equal(reply.isError, false, reply.text);
    assert.deepEqual(Object.keys(reply.data).sort(), ['sessionId', 'snapshot']);
    const { sessionId, snapshot } = reply.data as Required<typeof reply.data>;
    assert.match(sessionId, /^t\d+$/);
    assert.equal(snapshot.status, 'running');
    assert.equal(snapshot.cols, 30);
    assert.equal(snapshot.rows, 4);
    assert.deepEqual(snapshot.screen, ['ready', ''], 'rows down to the cursor, below ready');
    assert.equal(snapshot.buffer, 'normal');
    assert.equal(typeof snapshot.settled, 'boolean');
    assert.ok(s.registry.has(sessionId));
    const shown = await s.waitFor(sessionId, (x) => x.screen[0] === 'ready');
    assert.equal(shown.screen[0], 'ready');
    assert.equal((await s.call('terminal_close', { sessionId })).data.closed, true);
  });

  it('with waitForExit and autoClose, returns the final screen and closed:true', T, async () => {
    const reply = await s.call('terminal_start', {
      command: 'echo done; exit 7',
      ...SH,
      cols: 20,
      rows: 3,
      waitForExit: true,
      timeoutMs: 20_000,
      autoClose: true,
    });
    assert.equal(reply.isError, false, reply.text);
    assert.deepEqual(Object.keys(reply.data).sort(), ['closed', 'sessionId', 'snapshot']);
    assert.equal(reply.data.closed, true);
    assert.equal(reply.data.snapshot?.status, 'exited');
    assert.equal(reply.data.snapshot?.exitCode, 7);
    assert.equal(reply.data.snapshot?.screen[0], 'done');
    assert.equal(s.registry.has(reply.data.sessionId as string), false, 'the session is gone');
    assert.match(reply.text, /autoClose/);
  });

  it(
    'with waitForExit, reports timedOut:true (not an error) when the program runs on',
    T,
    async () => {
      const reply = await s.call('terminal_start', {
        command: 'sleep 30',
        ...SH,
        cols: 20,
        rows: 3,
        waitForExit: true,
        timeoutMs: 300,
      });
      assert.equal(reply.isError, false, reply.text);
      assert.deepEqual(Object.keys(reply.data).sort(), ['sessionId', 'snapshot', 'timedOut']);
      assert.equal(reply.data.timedOut, true);
      assert.equal(reply.data.error, undefined);
      assert.equal(reply.data.snapshot?.status, 'running');
      assert.match(reply.text, /timedOut/);
      const sessionId = reply.data.sessionId as string;
      assert.equal((await s.call('terminal_close', { sessionId })).data.closed, true);
    },
  );

  it('with waitForExit, reports inputRequired:true (not an error) when the program asks for input', {
    ...T,
    skip: process.platform === 'linux' ? false : 'the input-wait probe needs Linux',
  }, async () => {
    const reply = await s.call('terminal_start', {
      command: "read -p 'Go on? ' x",
      shell: '/bin/bash',
      login: false,
      cols: 20,
      rows: 3,
      waitForExit: true,
    });
    assert.equal(reply.isError, false, reply.text);
    assert.deepEqual(Object.keys(reply.data), ['sessionId', 'inputRequired', 'snapshot']);
    assert.equal(reply.data.inputRequired, true);
    assert.equal(reply.data.snapshot?.status, 'running');
    assert.match(reply.text, /inputRequired/);
    const sessionId = reply.data.sessionId as string;
    assert.equal((await s.call('terminal_close', { sessionId })).data.closed, true);
    const waited = await s.call('terminal_start', {
      command: "read -p 'Go on? ' x",
      shell: '/bin/bash',
      login: false,
      waitForExit: true,
      stopOnInput: false,
      timeoutMs: 800,
      autoClose: true,
    });
    assert.equal(waited.data.timedOut, true, waited.text);
    assert.equal(waited.data.inputRequired, undefined);
  });

  it('refuses stopOnInput without waitForExit with INVALID_ARGUMENT', T, async () => {
    const sizeBefore = s.registry.size;
    const reply = await s.call('terminal_start', { command: 'true', ...SH, stopOnInput: false });
    const error = assertToolError(reply, 'INVALID_ARGUMENT');
    assert.match(error.message, /stopOnInput applies only with waitForExit/);
    assert.equal(s.registry.size, sizeBefore);
  });

  it(
    'refuses timeoutMs without waitForExit with INVALID_ARGUMENT and starts nothing',
    T,
    async () => {
      const sizeBefore = s.registry.size;
      const reply = await s.call('terminal_start', { command: 'true', ...SH, timeoutMs: 500 });
      const error = assertToolError(reply, 'INVALID_ARGUMENT');
      assert.deepEqual(error.details, { timeoutMs: 500 });
      assert.deepEqual(Object.keys(reply.data), ['error']);
      assert.equal(s.registry.size, sizeBefore);
    },
  );

  it(
    'removes the variables in unsetEnv and sets those in env; null is no env value',
    T,
    async () => {
      const reply = await s.call('terminal_start', {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion
        command: 'echo "home=[${HOME-unset}] x=[$AGENT_TTY_X]"',
        ...SH,
        env: { AGENT_TTY_X: 'set' },
        unsetEnv: ['HOME'],
        waitForExit: true,
        autoClose: true,
      });
      assert.equal(reply.isError, false, reply.text);
      assert.equal(reply.data.snapshot?.screen[0], 'home=[unset] x=[set]');
      const rejected = await s.call('terminal_start', { command: 'true', env: { HOME: null } });
      assertToolError(rejected, 'INVALID_ARGUMENT');
      assert.match(rejected.text, /env\.HOME/);
    },
  );

  it('names each offending field of a schema error in details.issues', T, async () => {
    const reply = await s.call('terminal_start', { command: 'true', cols: 1, bogus: true });
    const error = assertToolError(reply, 'INVALID_ARGUMENT');
    const issues = error.details.issues as { path: string; message: string }[];
    assert.deepEqual(issues.map((i) => i.path).sort(), ['', 'cols']);
    assert.ok(issues.every((i) => typeof i.message === 'string' && i.message.length > 0));
    assert.match(error.message, /unknown field "bogus"/);
    assert.deepEqual(Object.keys(reply.data), ['error']);
  });

  it('starts a cwd of "~" or "~/dir" in the server\'s HOME, as a shell expands it', T, async () => {
    const home = process.env.HOME || homedir();
    const dir = mkdtempSync(`${home}/agent-tty-cwd-`);
    try {
      for (const [cwd, expected] of [
        ['~', home],
        [`~/${basename(dir)}`, dir],
      ] as const) {
        const reply = await s.call('terminal_start', {
          command: 'pwd -P',
          ...SH,
          cwd,
          waitForExit: true,
          autoClose: true,
        });
        assert.equal(reply.isError, false, reply.text);
        assert.equal(reply.data.snapshot?.screen[0], expected, `cwd ${cwd}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails with SPAWN_FAILED for a working directory that does not exist', T, async () => {
    const sizeBefore = s.registry.size;
    const cwd = '/nonexistent/agent-tty-test-dir';
    const reply = await s.call('terminal_start', { command: 'true', ...SH, cwd });
    const error = assertToolError(reply, 'SPAWN_FAILED');
    assert.equal(error.details.cwd, cwd);
    assert.equal(typeof error.details.file, 'string');
    assert.deepEqual(Object.keys(reply.data), ['error']);
    assert.equal(s.registry.size, sizeBefore, 'no session was created');
  });
});
