/**
 * Ready when it says so, as a new user meets it: a normal user (AGENT_TTY_TEST_USER when the
 * tests run as root) whose shell profile takes a second, on a machine whose two CPUs are busy,
 * and an agent that types as soon as it gets a result. A start returns the program's first real
 * screen, not a blank one called settled; a program that prints nothing and never reads returns
 * at the documented deadline labelled as such; keys sent right after a start reach a program that
 * reads them (top's and htop's `q`; Enter and Ctrl+C in a shell still reading its profile); a
 * profile stuck on a child shows that child as the foreground process, and input held for it
 * fails with NOT_READY, sending nothing. AGENT_TTY_READY_TRIALS repeats the first-screen check.
 * npm test checks the first screen of a REPL and of a shell; the heavy layer
 * (test/helpers/layers.ts) of every program of the table. Readiness, the start-up window and
 * the settle wait before readiness are unit-tested on a fake clock
 * (test/unit/session/readiness.test.ts, test/unit/screen/settle.test.ts). The cases run side by
 * side: two of them wait out the 10 s start-up window.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { WaitReport } from '../../src/shared/contract/progress.js';
import { HEAVY } from '../helpers/layers.js';
import { which } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';
import { testUser } from '../helpers/test-user.js';
import { assertToolError, screenText, type ToolReply } from '../helpers/tool-calls.js';

const LINUX =
  process.platform === 'linux' ? false : 'readiness by the input-wait probe needs Linux';
const TRIALS = Number(process.env.AGENT_TTY_READY_TRIALS ?? 1);
/** The documented start-up window (spec/guarantees.md, Readiness). */
const READY_TIMEOUT_MS = 10_000;

/** A directory the user the server runs as can use as its home. */
function homeFor(files: Record<string, string>): string {
  const home = mkdtempSync('/tmp/agent-tty-ready-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(home, name, '..'), { recursive: true });
    writeFileSync(join(home, name), text, { mode: name.startsWith('bin/') ? 0o755 : 0o644 });
  }
  chmodSync(home, 0o755);
  if (testUser?.name) {
    const uid = Number(execFileSync('id', ['-u', testUser.name], { encoding: 'utf8' }));
    const gid = Number(execFileSync('id', ['-g', testUser.name], { encoding: 'utf8' }));
    for (const path of [home, ...Object.keys(files).map((f) => join(home, f))]) {
      chownSync(path, uid, gid);
    }
    chownSync(join(home, 'bin'), uid, gid);
  }
  return home;
}

/** A profile that takes a second, as `pyenv init` does on a busy machine. */
const SLOW_PROFILE = {
  '.bashrc': 'sleep 1\nexport PATH="$HOME/bin:$PATH"\n',
  '.profile': '[ -f ~/.bashrc ] && . ~/.bashrc\n',
  '.zshrc': 'sleep 1\n',
  'bin/.keep': '',
  'notes.txt': 'first line of the notes\n',
};
/** A profile stuck on a child, as one waiting for a stale lock is (pyenv-rehash). */
const STUCK_PROFILE = {
  '.bashrc': 'export PATH="$HOME/bin:$PATH"\npyenv-rehash\n',
  'bin/pyenv-rehash': '#!/bin/sh\nsleep 60\n',
};

describe('ready when it says so', { skip: LINUX, concurrency: true }, () => {
  let h: Harness;
  let home: string;
  let stuckHome: string;
  const busy: ChildProcess[] = [];

  before(async () => {
    home = homeFor(SLOW_PROFILE);
    stuckHome = homeFor(STUCK_PROFILE);
    execFileSync('git', ['init', '-q', join(home, 'repo')]);
    writeFileSync(join(home, 'repo', 'f.txt'), 'a\nb\n');
    const git = (...args: string[]) =>
      execFileSync('git', [
        '-C',
        join(home, 'repo'),
        '-c',
        'user.name=t',
        '-c',
        'user.email=t@t',
        ...args,
      ]);
    git('add', 'f.txt');
    git('commit', '-qm', 'one');
    writeFileSync(join(home, 'repo', 'f.txt'), 'a\nc\n');
    execFileSync('chmod', ['-R', 'a+rwX', home]);
    // git refuses a repository another user owns ("dubious ownership").
    if (testUser?.name) execFileSync('chown', ['-R', `${testUser.name}:`, home]);
    h = await startServer({
      prefix: [...(testUser?.prefix ?? []), 'env', `HOME=${home}`],
      cwd: home,
      args: ['--max-sessions', '16'],
    });
    // Two CPUs busy, as on a loaded machine.
    for (let i = 0; i < 2; i++) {
      busy.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    }
  });
  after(async () => {
    for (const child of busy) child.kill('SIGKILL');
    await h.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(stuckHome, { recursive: true, force: true });
  });

  async function closeAll(...replies: ToolReply[]) {
    for (const reply of replies) {
      const id = reply.data.sessionId as string | undefined;
      if (id) await h.call('terminal_close', { sessionId: id });
    }
  }

  /**
   * The programs whose first screen is checked: npm test's are a REPL that loads before its
   * prompt and a shell whose profile is slow (LIGHT), the heavy layer's all of them.
   */
  const LIGHT = new Set(['python3', 'bash']);
  const firstScreens: [string, Record<string, unknown>, RegExp, string | false][] = [
    ['python3', { command: 'python3 -q' }, /^>>>$/m, !which('python3') && 'no python3'],
    ['node', { command: 'node' }, /^>$/m, false],
    ['bash', { shell: '/bin/bash' }, /[$#]$/m, false],
    ['zsh', { shell: '/usr/bin/zsh' }, /[%#>]$/m, !which('zsh') && 'no zsh'],
    [
      'vim',
      { command: `vim -Nu NONE -i NONE notes.txt` },
      /^first line of the notes$/m,
      !which('vim') && 'no vim',
    ],
    [
      'npm init',
      { command: 'mkdir -p app && cd app && npm init' },
      /package name:/,
      !which('npm') && 'no npm',
    ],
    ['git add -p', { command: 'cd repo && git add -p' }, /Stage this hunk/, false],
    ['htop', { command: 'htop' }, /Load average/, !which('htop') && 'no htop'],
    ['top', { command: 'top' }, /^Tasks:/m, !which('top') && 'no top'],
    ['less', { command: 'less notes.txt' }, /^first line of the notes$/m, false],
  ];

  it(`starts show the first real screen (${TRIALS} trial(s), two CPUs busy, a slow profile)`, async (t) => {
    const failures: string[] = [];
    const times = new Map<string, number[]>();
    for (let trial = 0; trial < TRIALS; trial++) {
      for (const [name, args, expected, skip] of firstScreens) {
        if (skip || !(HEAVY || LIGHT.has(name))) {
          if (trial === 0) t.diagnostic(`${name}: skipped (${skip || 'runs in the heavy layer'})`);
          continue;
        }
        const began = Date.now();
        const start = await h.call('terminal_start', args);
        const text = screenText(start.data.snapshot as never);
        times.set(name, [...(times.get(name) ?? []), Date.now() - began]);
        if (start.isError || !start.data.snapshot?.settled || !expected.test(text)) {
          failures.push(`${name} (trial ${trial + 1}): ${start.text.slice(0, 600)}`);
        }
        await closeAll(start);
      }
    }
    for (const [name, ms] of times) {
      const sorted = [...ms].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)];
      t.diagnostic(
        `${name}: first screen ${median} ms median, ${sorted.at(-1)} ms slowest of ${ms.length}`,
      );
    }
    assert.deepEqual(failures, []);
  });

  // The two wait out the 10 s start-up window, each on its own server: side by side.
  describe('the start-up window', { concurrency: true }, () => {
    it('a program that prints nothing returns at its exit, or at the deadline as not ready', async () => {
      const began = Date.now();
      const [sleeper, tailer] = await Promise.all([
        h.call('terminal_start', { command: 'sleep 3' }),
        h.call('terminal_start', { command: 'touch empty.log && tail -f empty.log' }),
      ]);
      assert.equal(sleeper.data.snapshot?.status, 'exited', sleeper.text);
      assert.equal(sleeper.data.snapshot?.settled, true);
      assert.equal(tailer.data.snapshot?.settled, false, tailer.text);
      assert.equal(tailer.data.snapshot?.settle, 'starting');
      assert.match(tailer.text, /no output yet/);
      // It waited for the deadline, and did not hang (that it ends at the deadline exactly:
      // test/unit/screen/settle.test.ts, test/unit/session/readiness.test.ts).
      const elapsed = Date.now() - began;
      assert.ok(
        elapsed >= READY_TIMEOUT_MS - 1500 && elapsed < 10 * READY_TIMEOUT_MS,
        `${elapsed} ms`,
      );
      await closeAll(tailer);
    });

    it('a profile stuck on a child shows it as the foreground process; input held for it fails with NOT_READY', async () => {
      const stuck = await startServer({
        prefix: [...(testUser?.prefix ?? []), 'env', `HOME=${stuckHome}`],
        cwd: stuckHome,
      });
      try {
        const start = await stuck.call('terminal_start', {
          shell: '/bin/bash',
          login: false,
          settleTimeoutMs: 3000,
        });
        assert.equal(start.data.snapshot?.settle, 'starting', start.text);
        assert.equal(start.data.snapshot?.foreground?.command, 'pyenv-rehash', start.text);
        assert.match(start.text, /foreground: pyenv-rehash \(\d+\)/);
        const list = await stuck.call('terminal_list', {});
        assert.match(list.text, /foreground: pyenv-rehash/);
        const sent = await stuck.call('terminal_input', {
          sessionId: start.data.sessionId as string,
          actions: [{ type: 'text', text: 'echo hi\n' }],
        });
        assertToolError(sent, 'NOT_READY');
        assert.equal(sent.data.inputSent, false);
        assert.match(sent.text, /pyenv-rehash/);
        // Once the start-up window is over, input is no longer held.
        const later = await stuck.call('terminal_input', {
          sessionId: start.data.sessionId as string,
          actions: [{ type: 'key', key: 'c', modifiers: ['Ctrl'] }],
        });
        assert.equal(later.isError, false, later.text);
      } finally {
        await stuck.close();
      }
    });
  });

  it("keys sent right after a start reach a program that reads them: top's and htop's q", async () => {
    const programs = ['top', 'htop'].filter((p) => which(p));
    for (const program of Array.from({ length: TRIALS }, () => programs).flat()) {
      const start = await h.call('terminal_start', { command: program, settleMs: 0 });
      const quit = await h.call('terminal_input', {
        sessionId: start.data.sessionId as string,
        actions: [
          { type: 'text', text: 'q' },
          { type: 'wait', exit: true, timeoutMs: 20_000 },
        ],
      });
      assert.equal(quit.isError, false, `${program}: ${quit.text}`);
      assert.equal(quit.data.snapshot?.exitCode, 0);
      await closeAll(start);
    }
  });

  it('Enter, Ctrl+C and a command typed while bash reads its slow profile leave a working shell with command marks', async () => {
    for (let trial = 0; trial < TRIALS; trial++) {
      const start = await h.call('terminal_start', { shell: '/bin/bash', settleMs: 0 });
      const sessionId = start.data.sessionId as string;
      const typed = await h.call('terminal_input', {
        sessionId,
        actions: [
          { type: 'key', key: 'Enter' },
          { type: 'key', key: 'c', modifiers: ['Ctrl'] },
          { type: 'text', text: 'echo o""k' },
          { type: 'key', key: 'Enter' },
          { type: 'wait', pattern: '^ok$', timeoutMs: 20_000 },
        ],
      });
      assert.equal(typed.isError, false, typed.text);
      const failed = await h.call('terminal_input', {
        sessionId,
        actions: [
          { type: 'text', text: '(exit 3)' },
          { type: 'key', key: 'Enter' },
          { type: 'wait', command: true, timeoutMs: 10_000 },
        ],
      });
      assert.equal(failed.isError, false, failed.text);
      const waits = (failed.data as { waits?: WaitReport[] }).waits ?? [];
      assert.equal(waits[0]?.command?.exitCode, 3, failed.text);
      await closeAll(start);
    }
  });
});
