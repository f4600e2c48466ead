/**
 * Waits that end early because the program asks for input, through the built server with real
 * programs (Linux, where the input-wait probe exists): a pattern wait, a gone wait, an exit wait
 * and a one-shot start stop soon after an unexpected prompt appears; npm init's extra prompt; and
 * no false stops: a late prompt, a clock, a background job at a shell prompt, a child that has
 * not started reading yet, a read with a short timeout, and stopOnInput:false. How soon is
 * measured from the moment the program printed its prompt (it writes the time to a file) to the
 * moment the result arrives, and reported; what is asserted is that the wait ended with
 * INPUT_REQUIRED well before the timeout it was given (speed is npm run bench's; the timing of
 * the stop is unit-tested on a fake clock in test/unit/session/early-stop.test.ts and
 * wait.test.ts). The cases run side by side, each on its own program. The heavy layer
 * (test/helpers/layers.ts) adds a refresh loop, a thread at work, and a read's long timeout with
 * stopOnInput:false.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { heavyOnly } from '../helpers/layers.js';
import { python, which } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';
import { assertToolError, screenText, type ToolReply } from '../helpers/tool-calls.js';

const LINUX = process.platform === 'linux' ? false : 'the input-wait probe needs Linux /proc';
const BASH = { shell: '/bin/bash', login: false };
/**
 * The timeout of each wait that must stop early, set on it: an early stop comes about 0.35 s after
 * the prompt (the quiet window, 300 ms, and a round trip), far from it.
 */
const WAIT_TIMEOUT_MS = 30_000;
/**
 * What "well before the timeout" is: a wait that ran on to its timeout, rather than stopping
 * early, is what a result later than this would be. Not a speed bound: a loaded machine is far
 * inside it.
 */
const WELL_BEFORE_MS = WAIT_TIMEOUT_MS / 2;

// Side by side: each case waits on its own program's timers and prompts, not on the CPU.
describe('early stop when the program waits for input', { skip: LINUX, concurrency: true }, () => {
  let h: Harness;
  let dir: string;
  let stamps = 0;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-tty-early-'));
    h = await startServer({ args: ['--max-sessions', '32'] });
  });
  after(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A file the program writes the time (ms since the epoch) to as it prints its prompt. */
  const stampFile = () => join(dir, `stamp-${++stamps}`);
  /** Bash that records the time, then prompts with `read -p`. */
  const stampedRead = (file: string, prompt: string) =>
    `date +%s%3N > ${file}; read -p '${prompt}' x`;
  /** Milliseconds from the stamp in `file` to now. */
  const sinceStamp = (file: string) => Date.now() - Number(readFileSync(file, 'utf8').trim());

  async function timed(t: TestContext, file: string, call: () => Promise<ToolReply>) {
    const reply = await call();
    const ms = sinceStamp(file);
    t.diagnostic(`prompt appeared → result: ${ms} ms`);
    assert.ok(ms < WELL_BEFORE_MS, `the result came ${ms} ms after the prompt: ${reply.text}`);
    return reply;
  }

  it('ends a pattern wait at a python prompt it did not expect: INPUT_REQUIRED, screen attached', async (t) => {
    const file = stampFile();
    const program = `import time; time.sleep(0.3); open('${file}', 'w').write(str(int(time.time() * 1000))); input('Overwrite config? [y/N] ')`;
    const { id } = await h.start({ command: `${python()} -c "${program}"`, ...BASH, settleMs: 0 });
    const reply = await timed(t, file, () =>
      h.input(id, [
        { type: 'wait', durationMs: 0 },
        { type: 'wait', pattern: 'Saved', timeoutMs: WAIT_TIMEOUT_MS },
      ]),
    );
    const error = assertToolError(reply, 'INPUT_REQUIRED');
    assert.match(
      error.message,
      /waiting for input and \/Saved\/ has not appeared \(quiet for (\d+ ms|\d+\.\d s)\)/,
    );
    assert.match(error.message, /stopOnInput:false/);
    assert.ok((error.details.quietMs as number) >= 300, JSON.stringify(error.details));
    assert.equal(reply.data.failedActionIndex, 1);
    assert.equal(reply.data.actionsCompleted, 1);
    assert.match(screenText(reply.data.snapshot as never), /Overwrite config\? \[y\/N\]$/);
    assert.match(reply.text, /latest screen/);
    await h.call('terminal_close', { sessionId: id });
  });

  it('ends a wait in an interactive shell whose foreground job asks', async (t) => {
    const file = stampFile();
    const { id } = await h.start({ command: 'exec bash --norc --noprofile -i', ...BASH });
    const program = `import time; time.sleep(0.3); open('${file}', 'w').write(str(int(time.time() * 1000))); input('Really delete? ')`;
    const reply = await timed(t, file, () =>
      h.input(id, [
        { type: 'text', text: `${python()} -c "${program}"` },
        { type: 'key', key: 'Enter' },
        { type: 'wait', pattern: 'Deleted', timeoutMs: WAIT_TIMEOUT_MS },
      ]),
    );
    assertToolError(reply, 'INPUT_REQUIRED');
    assert.match(screenText(reply.data.snapshot as never), /^Really delete\?$/m);
    await h.call('terminal_close', { sessionId: id });
  });

  it('ends a wait for gone text the same way', async () => {
    const { id } = await h.start({ command: "read -p 'Loading... ok? ' x", ...BASH });
    const started = Date.now();
    const reply = await h.input(id, [
      { type: 'wait', pattern: 'Loading', gone: true, timeoutMs: WAIT_TIMEOUT_MS },
    ]);
    const error = assertToolError(reply, 'INPUT_REQUIRED');
    assert.match(error.message, /\/Loading\/ is still on the screen/);
    assert.ok(Date.now() - started < WELL_BEFORE_MS, `${Date.now() - started} ms`);
    await h.call('terminal_close', { sessionId: id });
  });

  it('ends an exit wait at `read -p "Continue? "`, and the answer lets it exit', async (t) => {
    const file = stampFile();
    const { id } = await h.start({
      command: `sleep 0.3; ${stampedRead(file, 'Continue? ')}; echo done`,
      ...BASH,
      settleMs: 0,
    });
    const reply = await timed(t, file, () =>
      h.input(id, [{ type: 'wait', exit: true, timeoutMs: WAIT_TIMEOUT_MS }]),
    );
    const error = assertToolError(reply, 'INPUT_REQUIRED');
    assert.match(error.message, /waiting for input and it has not exited/);
    assert.match(screenText(reply.data.snapshot as never), /^Continue\?$/m);
    const answered = await h.input(id, [
      { type: 'text', text: 'y' },
      { type: 'key', key: 'Enter' },
      { type: 'wait', exit: true },
    ]);
    assert.equal(answered.isError, false, answered.text);
    assert.match(screenText(answered.data.snapshot as never), /^done$/m);
    await h.call('terminal_close', { sessionId: id });
  });

  it('returns a waiting one-shot start with inputRequired:true, the session open', async (t) => {
    const file = stampFile();
    const reply = await timed(t, file, () =>
      h.call('terminal_start', {
        command: `sleep 0.3; ${stampedRead(file, 'Proceed? [Y/n] ')}; echo done`,
        ...BASH,
        waitForExit: true,
        timeoutMs: WAIT_TIMEOUT_MS,
      }),
    );
    assert.equal(reply.isError, false, reply.text);
    assert.equal(reply.data.inputRequired, true);
    assert.equal(reply.data.timedOut, undefined);
    assert.equal(reply.data.closed, undefined);
    assert.equal(reply.data.snapshot?.status, 'running');
    assert.equal(reply.data.snapshot?.settle, 'input');
    assert.match(screenText(reply.data.snapshot as never), /Proceed\? \[Y\/n\]$/);
    assert.match(reply.text, /waiting for input \(inputRequired\): answer it with terminal_input/);
    const id = reply.data.sessionId as string;
    const answered = await h.input(id, [
      { type: 'key', key: 'Enter' },
      { type: 'wait', exit: true },
    ]);
    assert.equal(answered.isError, false, answered.text);
    assert.equal(answered.data.snapshot?.status, 'exited');
    await h.call('terminal_close', { sessionId: id });
  });

  it('keeps a waiting one-shot start open despite autoClose, and closes one that never asks at its end', async () => {
    const started = Date.now();
    const asked = await h.call('terminal_start', {
      command: "read -p 'Proceed? [Y/n] ' x",
      ...BASH,
      waitForExit: true,
      timeoutMs: WAIT_TIMEOUT_MS,
      autoClose: true,
    });
    assert.ok(Date.now() - started < WELL_BEFORE_MS, `${Date.now() - started} ms`);
    assert.equal(asked.data.inputRequired, true, asked.text);
    // An early stop never ends the program: the agent can still answer.
    assert.equal(asked.data.closed, false);
    assert.match(
      asked.text,
      /session left open \(autoClose closes only a run that exited or timed out\)/,
    );
    const answered = await h.call('terminal_input', {
      sessionId: asked.data.sessionId as string,
      actions: [
        { type: 'text', text: 'y\n' },
        { type: 'wait', exit: true },
      ],
    });
    assert.equal(answered.isError, false, answered.text);
    assert.equal(answered.data.snapshot?.exitCode, 0);
    await h.call('terminal_close', { sessionId: asked.data.sessionId as string });
    const plain = await h.call('terminal_start', {
      command: 'sleep 0.6; echo finished',
      ...BASH,
      waitForExit: true,
      autoClose: true,
    });
    assert.equal(plain.isError, false, plain.text);
    assert.equal(plain.data.inputRequired, undefined);
    assert.equal(plain.data.snapshot?.exitCode, 0);
    assert.match(screenText(plain.data.snapshot as never), /^finished$/m);
  });

  it('stops a wait for "Is this OK" at the npm init prompt nobody expected (type:)', {
    skip: which('npm') ? false : 'npm is not installed',
    timeout: 60_000,
  }, async (t) => {
    const project = mkdtempSync(join(dir, 'npm-'));
    // npm's weekly update check keeps a socket to the registry open while it prompts, and an open
    // socket counts as work, so early stop waits the whole timeout when the check is due (a new
    // user's first npm run): an open product bug, not this test's subject. The check is off here,
    // as the prompts layer's fresh user would otherwise meet it.
    const { id } = await h.start({
      command: 'NPM_CONFIG_UPDATE_NOTIFIER=false npm init',
      cwd: project,
      ...BASH,
      settleMs: 0,
    });
    // The prompts of the README's worked example; npm 11 asks `type:` after `license:`.
    const expected = ['package name:', 'version:', 'description:', 'entry point:'];
    expected.push('test command:', 'git repository:', 'keywords:', 'author:', 'license:');
    const started = Date.now();
    const reply = await h.input(id, [
      ...expected.flatMap((pattern) => [
        { type: 'wait', pattern },
        { type: 'key', key: 'Enter' },
      ]),
      { type: 'wait', pattern: 'Is this OK', timeoutMs: WAIT_TIMEOUT_MS },
    ]);
    const error = assertToolError(reply, 'INPUT_REQUIRED');
    assert.match(error.message, /\/Is this OK\/ has not appeared/);
    assert.equal(reply.data.failedActionIndex, expected.length * 2);
    assert.match(screenText(reply.data.snapshot as never), /^type: \(commonjs\)$/m);
    const waited = (reply.data.waits ?? []).reduce((sum, w) => sum + w.elapsedMs, 0);
    const afterLicense = Date.now() - started - waited;
    t.diagnostic(`license answered → INPUT_REQUIRED: at most ${afterLicense} ms (was 30000 ms)`);
    assert.ok(afterLicense < WELL_BEFORE_MS, `${afterLicense} ms after the last expected prompt`);
    await h.call('terminal_close', { sessionId: id });
  });

  // Concurrently: each waits on its own program's timers (seconds of them), not on the CPU.
  describe('no false stops', { concurrency: true }, () => {
    it('a prompt that comes after 2 s of silence', async () => {
      const { id } = await h.start({ command: "sleep 2; read -p 'Name? ' x", ...BASH });
      const reply = await h.input(id, [{ type: 'wait', pattern: 'Name\\? $' }]);
      assert.equal(reply.isError, false, reply.text);
      await h.call('terminal_close', { sessionId: id });
    });

    it('a clock printing every 500 ms while the wait is for a later line', async () => {
      const { id } = await h.start({
        command: 'for i in 1 2 3 4 5; do echo tick $i; sleep 0.5; done; echo END; sleep 30',
        ...BASH,
        settleMs: 0,
      });
      const reply = await h.input(id, [{ type: 'wait', pattern: '^END$' }]);
      assert.equal(reply.isError, false, reply.text);
      await h.call('terminal_close', { sessionId: id });
    });

    // npm test: the read with a short timeout below; test/unit/session/early-stop.test.ts (a
    // refresh loop's timeout) and test/unit/pty/input-wait.test.ts (a read with a timeout).
    it('a program that polls the terminal with a 1.5 s timeout and prints at each one', {
      skip: heavyOnly,
    }, async () => {
      const program = [
        'import select, sys',
        'for i in range(1, 4):',
        '    select.select([sys.stdin], [], [], 1.5)',
        '    print("refresh", i, flush=True)',
        'input()',
      ].join('\n');
      const file = join(dir, 'refresh.py');
      writeFileSync(file, program);
      const { id } = await h.start({ command: `${python()} ${file}`, ...BASH, settleMs: 0 });
      const reply = await h.input(id, [{ type: 'wait', pattern: 'refresh 3' }]);
      assert.equal(reply.isError, false, reply.text);
      await h.call('terminal_close', { sessionId: id });
    });

    // A busy thread loads a CPU; npm test: test/unit/pty/input-wait.test.ts (a real thread at
    // work) and test/unit/session/early-stop.test.ts (the CPU of a thread at work).
    it('a program whose main thread reads while another thread works, then prints', {
      skip: heavyOnly,
    }, async () => {
      const program = [
        'import threading, time',
        'def work():',
        '    end = time.time() + 2',
        '    while time.time() < end: pass',
        '    print("result ready", flush=True)',
        'threading.Thread(target=work).start()',
        'input()',
      ].join('\n');
      const file = join(dir, 'worker.py');
      writeFileSync(file, program);
      const { id } = await h.start({ command: `${python()} ${file}`, ...BASH, settleMs: 0 });
      const reply = await h.input(id, [{ type: 'wait', pattern: 'result ready' }]);
      assert.equal(reply.isError, false, reply.text);
      await h.call('terminal_close', { sessionId: id });
    });

    it('output from a background job at a shell prompt', async () => {
      const { id } = await h.start({ command: 'exec bash --norc --noprofile -i', ...BASH });
      const reply = await h.input(id, [
        { type: 'text', text: '(sleep 1.5; echo DO""NE) &' },
        { type: 'key', key: 'Enter' },
        { type: 'wait', pattern: 'DONE' },
      ]);
      assert.equal(reply.isError, false, reply.text);
      assert.ok((reply.data.waits?.[0]?.elapsedMs ?? 0) >= 1000, JSON.stringify(reply.data.waits));
      await h.call('terminal_close', { sessionId: id });
    });

    it('a child that has not started reading yet', async () => {
      const { id } = await h.start({ command: `sleep 1; ${python()} -q`, ...BASH, settleMs: 0 });
      const reply = await h.input(id, [{ type: 'wait', pattern: '>>> $' }]);
      assert.equal(reply.isError, false, reply.text);
      await h.call('terminal_close', { sessionId: id });
    });

    it('a read with its own short timeout (bash read -t 2): what it prints after is seen', async () => {
      const { id } = await h.start({
        command: "read -t 2 -p 'Name? ' x || echo 'timed out'; sleep 30",
        ...BASH,
      });
      const reply = await h.input(id, [{ type: 'wait', pattern: 'timed out' }]);
      assert.equal(reply.isError, false, reply.text);
      await h.call('terminal_close', { sessionId: id });
    });

    it('stopOnInput:false keeps waiting to the timeout', async () => {
      const { id } = await h.start({ command: `${python()} -q`, ...BASH });
      const started = Date.now();
      const reply = await h.input(id, [
        { type: 'wait', pattern: 'never appears', timeoutMs: 1500, stopOnInput: false },
      ]);
      assertToolError(reply, 'WAIT_TIMEOUT');
      assert.ok(Date.now() - started >= 1500, `${Date.now() - started} ms`);
      await h.call('terminal_close', { sessionId: id });
    });
  });

  describe('a read with its own long timeout looks like a wait for input', () => {
    const LONG = "read -t 6 -p 'Name? ' x || echo 'timed out'; sleep 30";

    it('ends the wait early', async () => {
      const { id } = await h.start({ command: LONG, ...BASH });
      // INPUT_REQUIRED: the wait ended before the read's own timeout printed what it waits for.
      const reply = await h.input(id, [{ type: 'wait', pattern: 'timed out' }]);
      assertToolError(reply, 'INPUT_REQUIRED');
      await h.call('terminal_close', { sessionId: id });
    });

    // npm test: 'stopOnInput:false keeps waiting to the timeout' above.
    it('with stopOnInput:false the wait sees what it prints after its timeout', {
      skip: heavyOnly,
    }, async () => {
      const { id } = await h.start({ command: LONG, ...BASH });
      const reply = await h.input(id, [{ type: 'wait', pattern: 'timed out', stopOnInput: false }]);
      assert.equal(reply.isError, false, reply.text);
      await h.call('terminal_close', { sessionId: id });
    });
  });
});
