/**
 * Real interactive programs driven the way an agent would: python3, vim, less, git add -p and
 * npm init. Each is skipped with a printed reason when it is not installed. They run side by
 * side, each in a session of its own.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { python, which } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';
import { type Snapshot, screenText } from '../helpers/tool-calls.js';

const missing = (program: string) => (which(program) ? false : `${program} is not installed`);

const lastLine = (s: Snapshot) => screenText(s).split('\n').at(-1) ?? '';

describe('interactive programs', { concurrency: true }, () => {
  let h: Harness;
  let dir: string;
  before(async () => {
    h = await startServer();
    dir = mkdtempSync(join(tmpdir(), 'agent-tty-e2e-'));
  });
  after(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('drives the python3 REPL and sees its exit', { skip: missing('python3') }, async () => {
    const { id } = await h.start({ command: python(), cols: 80, rows: 20, login: false });
    await h.waitFor(id, (s) => lastLine(s).startsWith('>>>'));
    const sum = await h.input(id, [
      { type: 'text', text: '1+1' },
      { type: 'key', key: 'Enter' },
    ]);
    assert.match(screenText(sum.data.snapshot as Snapshot), /^2$/m);
    if (process.platform === 'linux') {
      assert.equal(sum.data.snapshot?.waitingForInput, true, 'the REPL waits at its prompt');
    }
    await h.input(id, [{ type: 'key', key: 'd', modifiers: ['Ctrl'] }]);
    const done = await h.waitFor(id, (s) => s.status === 'exited');
    assert.equal(done.exitCode, 0, JSON.stringify(done));
    const list = await h.call('terminal_list');
    assert.deepEqual(
      list.data.sessions?.filter((s) => s.sessionId === id).map((s) => [s.status, s.exitCode]),
      [['exited', 0]],
    );
    await h.call('terminal_close', { sessionId: id });
  });

  it('interrupts a busy python3 with Ctrl+C', { skip: missing('python3') }, async () => {
    const { id } = await h.start({ command: python(), cols: 80, rows: 20, login: false });
    await h.waitFor(id, (s) => lastLine(s).startsWith('>>>'));
    // It says when its loop begins (BUSY, split so that the echoed line does not match): the
    // Ctrl+C comes once it is at work, not at its prompt.
    const busy = await h.input(id, [
      {
        type: 'text',
        text: 'import itertools; print("BU" "SY"); any(False for _ in itertools.count())',
      },
      { type: 'key', key: 'Enter' },
      { type: 'wait', pattern: '^BUSY$', timeoutMs: 20_000 },
      { type: 'key', key: 'c', modifiers: ['Ctrl'] },
    ]);
    assert.equal(busy.isError, false, busy.text);
    const after = await h.waitFor(id, (s) => /KeyboardInterrupt/.test(screenText(s)));
    assert.equal(after.status, 'running');
    await h.call('terminal_close', { sessionId: id });
  });

  it('edits and saves a file in vim, arrows following application cursor mode', {
    skip: missing('vim'),
  }, async () => {
    const file = join(dir, 'note.txt');
    const { id } = await h.start({
      command: `vim -Nu NONE -i NONE ${file}`,
      cols: 80,
      rows: 24,
      login: false,
    });
    const opened = await h.waitFor(
      id,
      (s) => s.buffer === 'alternate' && /note\.txt/.test(screenText(s)),
    );
    assert.equal(opened.buffer, 'alternate');
    await h.input(id, [
      { type: 'key', key: 'i' },
      { type: 'text', text: 'hello abc' },
      { type: 'key', key: 'Escape' },
      { type: 'key', key: 'Left' },
      { type: 'key', key: 'x' },
      { type: 'key', key: 'Home' },
      { type: 'key', key: 'x' },
    ]);
    const edited = await h.waitFor(id, (s) => s.screen[0] === 'ello ac');
    assert.equal(edited.cursor.row, 1);
    const saved = await h.input(id, [
      { type: 'text', text: ':wq' },
      { type: 'key', key: 'Enter' },
    ]);
    const final =
      saved.data.snapshot?.status === 'exited'
        ? saved.data.snapshot
        : await h.waitFor(id, (s) => s.status === 'exited');
    assert.equal(final?.exitCode, 0);
    assert.equal(readFileSync(file, 'utf8'), 'ello ac\n');
    await h.call('terminal_close', { sessionId: id });
  });

  it('pages through a file in less and keeps normal-buffer history readable', {
    skip: missing('less'),
  }, async () => {
    const file = join(dir, 'lines.txt');
    writeFileSync(file, Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join('\n'));
    const { id } = await h.start({
      command: `seq 1 30; less ${file}`,
      cols: 60,
      rows: 10,
      login: false,
      env: { LESS: '', LESSHISTFILE: '-' },
    });
    const first = await h.waitFor(id, (s) => s.screen[0] === 'line 1');
    assert.equal(first.buffer, 'alternate');
    const history = await h.snapshot(id, { scrollbackLines: 50 });
    assert.deepEqual(
      history.scrollback?.lines.slice(0, 3),
      ['1', '2', '3'],
      'history of the normal buffer',
    );
    const end = await h.input(id, [{ type: 'key', key: 'G' }]);
    assert.match(screenText(end.data.snapshot as Snapshot), /line 200/);
    const up = await h.input(id, [{ type: 'key', key: 'PageUp' }]);
    assert.doesNotMatch(screenText(up.data.snapshot as Snapshot), /line 200/);
    await h.input(id, [{ type: 'key', key: 'q' }]);
    const done = await h.waitFor(id, (s) => s.status === 'exited');
    assert.equal(done.buffer, 'normal');
    await h.call('terminal_close', { sessionId: id });
  });

  it('stages one hunk of two with git add -p', { skip: missing('git') }, async () => {
    const repo = join(dir, 'repo');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
    execFileSync('git', ['init', '-q', repo]);
    git('config', 'user.email', 'test@example.com');
    git('config', 'user.name', 'Test');
    const lines = Array.from({ length: 30 }, (_, i) => `row ${i + 1}`);
    writeFileSync(join(repo, 'f.txt'), `${lines.join('\n')}\n`);
    git('add', '.');
    git('commit', '-qm', 'init');
    lines[1] = 'row 2 changed';
    lines[27] = 'row 28 changed';
    writeFileSync(join(repo, 'f.txt'), `${lines.join('\n')}\n`);
    const { id } = await h.start({
      command: 'git -c core.pager=cat -c color.ui=false add -p',
      cwd: repo,
      cols: 100,
      rows: 30,
      login: false,
    });
    await h.waitFor(id, (s) => /\(1\/2\) Stage this hunk/.test(screenText(s)));
    await h.input(id, [
      { type: 'text', text: 'y' },
      { type: 'key', key: 'Enter' },
    ]);
    await h.waitFor(id, (s) => /\(2\/2\) Stage this hunk/.test(screenText(s)));
    await h.input(id, [
      { type: 'text', text: 'n' },
      { type: 'key', key: 'Enter' },
    ]);
    await h.waitFor(id, (s) => s.status === 'exited');
    const staged = git('diff', '--cached');
    assert.match(staged, /\+row 2 changed/);
    assert.doesNotMatch(staged, /row 28 changed/);
    await h.call('terminal_close', { sessionId: id });
  });

  it('answers every npm init prompt', { skip: missing('npm'), timeout: 60_000 }, async () => {
    const project = mkdtempSync(join(dir, 'npm-'));
    const { id } = await h.start({
      command: 'npm init',
      cwd: project,
      cols: 100,
      rows: 30,
      login: false,
    });
    const answers: [RegExp, string][] = [
      [/package name:/, 'my-app'],
      [/description:/, 'Answered by an agent'],
      [/Is this OK\?/, 'yes'],
    ];
    let screen = await h.waitFor(id, (s) => /package name:/.test(screenText(s)), 30_000);
    for (let step = 0; step < 20 && screen.status === 'running'; step++) {
      const prompt = lastLine(screen);
      const answer = answers.find(([re]) => re.test(prompt))?.[1] ?? '';
      const reply = await h.input(id, [
        ...(answer ? [{ type: 'text', text: answer }] : []),
        { type: 'key', key: 'Enter' },
      ]);
      screen = await h.waitFor(
        id,
        (s) => s.status === 'exited' || (lastLine(s) !== prompt && /[:?)] ?$/.test(lastLine(s))),
        15_000,
      );
      assert.equal(reply.isError, false, reply.text);
    }
    assert.equal(screen.status, 'exited');
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
    assert.equal(pkg.name, 'my-app');
    assert.equal(pkg.description, 'Answered by an agent');
    await h.call('terminal_close', { sessionId: id });
  });
});
