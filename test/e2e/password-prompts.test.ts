/**
 * Password prompts of set-user-ID programs (sudo, su, passwd), as a normal user meets them: the
 * server cannot read such a program's /proc entries, so it reads the terminal's mode instead
 * (echo off, canonical input on). A one-shot `sudo -k; sudo id -u` returns inputRequired with the
 * attach hint, a wait at su's and passwd's prompts stops early, and a command run through sudo
 * once the password is given (root's, unreadable, with echo on) is not taken for a prompt. Runs
 * as a normal user: the user running the tests, or, as root, AGENT_TTY_TEST_USER (.ci/run).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { which } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';
import { needsTestUser, testUser } from '../helpers/test-user.js';
import { assertToolError, screenText } from '../helpers/tool-calls.js';

const BASH = { shell: '/bin/bash', login: false };
/** How soon after the prompt the wait must end: 300 ms of quiet, with room for a loaded machine. */
const PROMPT_TO_STOP_MS = 2000;

describe('password prompts of set-user-ID programs, as a normal user', {
  skip: needsTestUser || (!which('sudo') && 'sudo is not installed'),
}, () => {
  let h: Harness;
  before(async () => {
    h = await startServer({ prefix: testUser?.prefix ?? [], cwd: '/tmp' });
  });
  after(() => h.close());

  /** Starts `command`, waits for its exit, and expects the wait to stop at the prompt. */
  async function stopsAt(command: string, prompt: RegExp) {
    const start = await h.call('terminal_start', { command, ...BASH, settleMs: 0 });
    assert.equal(start.isError, false, start.text);
    const id = start.data.sessionId as string;
    const wait = await h.call('terminal_input', {
      sessionId: id,
      actions: [{ type: 'wait', exit: true, timeoutMs: 30_000 }],
    });
    assertToolError(wait, 'INPUT_REQUIRED');
    assert.match(screenText(wait.data.snapshot as never), prompt);
    const quietMs = wait.data.snapshot?.quietMs as number;
    assert.ok(quietMs < PROMPT_TO_STOP_MS, `stopped ${quietMs} ms after the prompt`);
    return id;
  }

  it('a one-shot sudo returns inputRequired with the attach hint at its password prompt', async () => {
    const started = Date.now();
    const run = await h.call('terminal_start', {
      command: 'sudo -k; sudo id -u',
      ...BASH,
      waitForExit: true,
      timeoutMs: 30_000,
    });
    assert.equal(run.isError, false, run.text);
    assert.equal(run.data.inputRequired, true, run.text);
    assert.ok(Date.now() - started < 10_000, `${Date.now() - started} ms`);
    assert.match(screenText(run.data.snapshot as never), /password for/);
    assert.match(run.text, /agent-tty attach t\d+/);
    assert.equal(run.data.snapshot?.waitingForInput, true);
    await h.call('terminal_close', { sessionId: run.data.sessionId as string });
  });

  it('su and passwd prompts stop a wait soon after they appear', {
    skip: !which('passwd') && 'passwd is not installed',
  }, async () => {
    for (const [command, prompt] of [
      ['su -c true', /Password:/],
      ['passwd', /(Current|current).*password:/],
    ] as const) {
      const id = await stopsAt(command, prompt);
      await h.call('terminal_close', { sessionId: id });
    }
  });

  it('once answered, the command sudo runs (as root, echo on) is not taken for a prompt', {
    skip: !testUser?.password && 'the test user has no known password (AGENT_TTY_TEST_PASSWORD)',
  }, async () => {
    const password = testUser?.password as string;
    const id = await stopsAt('sudo -k; sudo -v && sudo sleep 2 && echo SUDO-DONE', /password for/);
    const answered = await h.call('terminal_input', {
      sessionId: id,
      actions: [
        { type: 'text', text: password },
        { type: 'key', key: 'Enter' },
        { type: 'wait', exit: true, timeoutMs: 30_000 },
      ],
    });
    assert.equal(answered.isError, false, answered.text);
    assert.equal(answered.data.snapshot?.exitCode, 0);
    assert.match(screenText(answered.data.snapshot as never), /SUDO-DONE/);
    assert.ok(!answered.text.includes(password), 'the password is in no result');
    const history = await h.call('terminal_snapshot', { sessionId: id, historySince: 0 });
    assert.ok(!history.text.includes(password), 'nor in the history');
    await h.call('terminal_close', { sessionId: id });
  });
});
