/**
 * Command marks: an interactive bash, zsh or fish started by terminal_start reports
 * where each command's output is and how it exited, and `{"type":"wait","command":true}` ends on
 * that report: exit codes through the marks in each shell, login or not; the prompt exactly as
 * without marks; a nested shell's marks are not taken for the outer one's; a long command; a
 * command that asks something midway; the shell itself exiting; the opt-out and non-shells
 * refused before anything is sent. Every shell runs with HOME set to a fresh directory whose
 * startup files set a custom prompt, so the real home is never read. npm test runs each shell
 * once (bash, zsh, fish as a login shell); the heavy layer (test/helpers/layers.ts) adds bash and
 * zsh as login shells, whose startup files are unit-tested in
 * test/unit/session/shell-integration.test.ts (createShellIntegration: "bash: --rcfile to a
 * private file that reads ~/.bashrc, or the login files for a login shell", "zsh: ZDOTDIR names a
 * private directory of the four startup files, the hooks and the server"; and "the startup files
 * parse in their shell"). The groups of tests run side by side, each on a server of its own.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { WaitReport } from '../../src/shared/contract/progress.js';
import { heavyOnly } from '../helpers/layers.js';
import { which } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';
import { homeEnv, ShellHomes, skipUnlessShell } from '../helpers/shell-homes.js';
import {
  assertToolError,
  type Snapshot,
  screenText,
  type ToolReply,
} from '../helpers/tool-calls.js';

const homes = new ShellHomes();
const freshHome = (files: Record<string, string>) => homes.create(files);

interface ShellCase {
  readonly shell: string;
  readonly login: boolean;
  /** Run in the heavy layer only: the shell's other launch is npm test's. */
  readonly heavy?: boolean;
  /** The prompt the home's startup files set, as a regex over the cursor's row. */
  readonly prompt: RegExp;
  home(): Record<string, string>;
}

const BASH_RC = { '.bashrc': 'PS1="bash-custom> "\n' };
const CASES: ShellCase[] = [
  { shell: 'bash', login: false, prompt: /bash-custom>$/, home: () => BASH_RC },
  {
    shell: 'bash',
    login: true,
    heavy: true,
    prompt: /bash-login>$/,
    home: () => ({ '.bash_profile': 'PS1="bash-login> "\n', ...BASH_RC }),
  },
  {
    shell: 'zsh',
    login: false,
    prompt: /zsh-custom>$/,
    home: () => ({ '.zshrc': "PS1='zsh-custom> '\n" }),
  },
  {
    shell: 'zsh',
    login: true,
    heavy: true,
    prompt: /zsh-login>$/,
    home: () => ({ '.zprofile': "PS1='zsh-login> '\n" }),
  },
  {
    shell: 'fish',
    login: true,
    prompt: /fish-custom>$/,
    home: () => ({
      '.config/fish/config.fish':
        'set -g fish_greeting\nfunction fish_prompt; echo -n "fish-custom> "; end\n',
    }),
  },
];

const envFor = homeEnv;
const skipUnless = skipUnlessShell;
const needsBash = skipUnless('bash');

/** The waits of a terminal_input reply. */
const waitsOf = (reply: ToolReply) => (reply.data as { waits?: WaitReport[] }).waits ?? [];

/** The text of lines `from`-`to` in the one line numbering (history lines, then screen rows). */
async function linesOf(h: Harness, id: string, from: number, to: number): Promise<string[]> {
  const s: Snapshot = await h.snapshot(id, { scrollbackLines: 2000, settleMs: 0 });
  const back = s.scrollback?.lines ?? [];
  const text = (line: number) =>
    line > s.historyTotal
      ? (s.screen[line - s.historyTotal - 1] ?? '')
      : (back[back.length - (s.historyTotal - line) - 1] ?? '?');
  return Array.from({ length: to - from + 1 }, (_, i) => text(from + i).trimEnd());
}

const run = (text: string, extra: Record<string, unknown> = {}) => [
  { type: 'text', text },
  { type: 'key', key: 'Enter' },
  { type: 'wait', command: true, ...extra },
];

/**
 * Starts a server of the group's own before its tests (`set` receives it), in a temporary
 * directory of its own: servers beside it, of this file and of others, have sessions t1, t2 too,
 * whose start-up files may still be there. Closes every session a test left after it, so that a
 * failed test does not fill the session limit; returns the temporary directory.
 */
function serverOfTheGroup(set: (h: Harness) => void): string {
  const serverTmp = mkdtempSync(join(tmpdir(), 'agent-tty-marks-tmp-'));
  let server: Harness | undefined;
  before(async () => {
    server = await startServer({ env: { TMPDIR: serverTmp } });
    set(server);
  });
  afterEach(async () => {
    for (const s of (await server?.call('terminal_list'))?.data.sessions ?? []) {
      await server?.call('terminal_close', { sessionId: s.sessionId });
    }
  });
  after(async () => {
    await server?.close();
    rmSync(serverTmp, { recursive: true, force: true });
  });
  return serverTmp;
}

/** Starts shell case `c` in a fresh home on `h`, and waits for its prompt. */
async function startShell(h: Harness, c: ShellCase): Promise<string> {
  const home = freshHome(c.home());
  const { id } = await h.start({
    shell: c.shell,
    login: c.login,
    env: envFor(home),
    cols: 80,
    rows: 12,
  });
  await h.waitFor(id, (s) => c.prompt.test(s.screen[s.cursor.row - 1] ?? ''), 20_000);
  return id;
}

// Side by side: each group has a server of its own, and most of its time is its shells' waits.
describe('command marks', { concurrency: true }, () => {
  after(() => homes.removeAll());

  describe('in each shell', { concurrency: 1 }, () => {
    let h: Harness;
    serverOfTheGroup((server) => {
      h = server;
    });

    for (const c of CASES) {
      const name = `${c.shell}${c.login ? ' (login)' : ''}`;
      it(`${name}: exit codes and output lines of each command`, {
        skip: (c.heavy ? heavyOnly : false) || skipUnless(c.shell),
      }, async () => {
        const id = await startShell(h, c);
        const failed = await h.input(id, run('false'));
        assert.equal(failed.isError, false, failed.text);
        assert.deepEqual(waitsOf(failed)[0]?.command, { exitCode: 1 }, 'false: exit 1, no output');
        assert.equal(waitsOf(failed)[0]?.reason, 'finished');
        assert.match(
          failed.text,
          /wait #2: command finished: exit 1, no output, after (\d+ ms|\d+\.\d s|\d+ s)/,
        );

        const printed = await h.input(id, run('echo one; echo two; sh -c "exit 4"'));
        const command = waitsOf(printed)[0]?.command;
        assert.equal(command?.exitCode, 4, printed.text);
        assert.deepEqual(await linesOf(h, id, command?.fromLine ?? 0, command?.toLine ?? -1), [
          'one',
          'two',
        ]);
        assert.match(printed.text, /command finished: exit 4, output lines \d+-\d+/);

        // Enough output to scroll: the lines are still found by their numbers.
        const many = await h.input(id, run('seq 1 30'));
        const seq = waitsOf(many)[0]?.command;
        assert.equal(seq?.exitCode, 0);
        const lines = await linesOf(h, id, seq?.fromLine ?? 0, seq?.toLine ?? -1);
        assert.deepEqual(
          lines,
          Array.from({ length: 30 }, (_, i) => String(i + 1)),
        );
        await h.call('terminal_close', { sessionId: id });
      });
    }

    it("fish's first run is ready at its prompt while it generates completions in its group", {
      skip: skipUnless('fish') || (!which('python3') && 'no python3'),
    }, async () => {
      const home = freshHome({ '.config/fish/config.fish': 'set -g fish_greeting\n' });
      // A first run: fish starts python3 in its own process group to generate completions.
      rmSync(join(home, '.local/fish/generated_completions'), { recursive: true });
      const since = performance.now();
      const started = await h.call('terminal_start', { shell: 'fish', env: envFor(home) });
      const took = performance.now() - since;
      const snapshot = started.data.snapshot;
      assert.equal(snapshot?.settled, true, started.text);
      assert.ok(took < 5000, `ready in ${Math.round(took)} ms, not at the end of the window`);
      assert.match(screenText(snapshot as Snapshot), /[#>] ?$/m);
      assert.equal(snapshot?.foreground, undefined, 'the shell at its prompt is the foreground');
      const id = started.data.sessionId as string;
      const ran = await h.input(id, run('echo ready-$status'));
      assert.equal(waitsOf(ran)[0]?.command?.exitCode, 0, ran.text);
    });

    it('zsh exiting ends the wait too', { skip: skipUnless('zsh') }, async () => {
      const id = await startShell(h, CASES[2] as ShellCase);
      const reply = await h.input(id, run('exit 3'));
      assert.equal(waitsOf(reply)[0]?.reason, 'exited', reply.text);
      assert.equal(reply.data.snapshot?.exitCode, 3);
      await h.call('terminal_close', { sessionId: id });
    });
  });

  describe('command waits', { concurrency: 1 }, () => {
    let h: Harness;
    serverOfTheGroup((server) => {
      h = server;
    });

    it('a wait before anything was typed says there is no command to wait for', {
      skip: skipUnless('bash'),
    }, async () => {
      const id = await startShell(h, CASES[0] as (typeof CASES)[number]);
      const reply = await h.input(id, [{ type: 'wait', command: true, timeoutMs: 5000 }]);
      const error = assertToolError(reply, 'INVALID_ARGUMENT');
      assert.match(error.message, /no command to wait for: nothing has been typed/);
      assert.equal(reply.data.inputSent, false);
      await h.call('terminal_close', { sessionId: id });
    });

    it('a wait alone reports the command an earlier call typed, finished or not', {
      skip: needsBash,
    }, async () => {
      const id = await startShell(h, CASES[0] as ShellCase);
      await h.input(id, [
        { type: 'text', text: 'sh -c "exit 5"' },
        { type: 'key', key: 'Enter' },
      ]);
      const later = await h.input(id, [{ type: 'wait', command: true }]);
      assert.equal(waitsOf(later)[0]?.command?.exitCode, 5, later.text);
      // Typed and not yet run when the wait starts: the wait is for it, not the one before.
      await h.input(
        id,
        [
          { type: 'text', text: 'sleep 0.5; sh -c "exit 6"' },
          { type: 'key', key: 'Enter' },
        ],
        {
          settleMs: 0,
        },
      );
      const next = await h.input(id, [{ type: 'wait', command: true }]);
      assert.equal(waitsOf(next)[0]?.command?.exitCode, 6, next.text);
      await h.call('terminal_close', { sessionId: id });
    });

    it('a long command: the wait spans it, with progress notifications', {
      skip: needsBash,
    }, async () => {
      const id = await startShell(h, CASES[0] as ShellCase);
      const progress: number[] = [];
      const result = await h.client.callTool(
        {
          name: 'terminal_input',
          arguments: { sessionId: id, actions: run('sleep 2; echo done') },
        },
        undefined,
        { onprogress: (p) => progress.push(p.progress), timeout: 30_000 },
      );
      const reply = { data: result.structuredContent ?? {} } as unknown as ToolReply;
      const wait = waitsOf(reply)[0];
      assert.equal(wait?.reason, 'finished');
      assert.equal(wait?.command?.exitCode, 0);
      assert.ok((wait?.elapsedMs ?? 0) >= 1900, `ended after ${wait?.elapsedMs} ms, not on quiet`);
      assert.ok(progress.length >= 1, `progress notifications: ${progress}`);
      await h.call('terminal_close', { sessionId: id });
    });

    it('a command that asks midway has not finished until it is answered', {
      skip: needsBash,
    }, async () => {
      const id = await startShell(h, CASES[0] as ShellCase);
      const asked = await h.input(
        id,
        run('read -p "name? " n; echo "hi $n"', { timeoutMs: 1500, stopOnInput: false }),
      );
      assertToolError(asked, 'WAIT_TIMEOUT');
      assert.equal(asked.data.failedActionIndex, 2);
      assert.match(asked.data.error?.message ?? '', /the shell's command to finish/);
      assert.match(asked.text, /│name\?/);
      const answered = await h.input(id, [
        { type: 'text', text: 'Ada' },
        { type: 'key', key: 'Enter' },
        { type: 'wait', command: true },
      ]);
      const command = waitsOf(answered)[0]?.command;
      assert.equal(command?.exitCode, 0, answered.text);
      assert.deepEqual(await linesOf(h, id, command?.fromLine ?? 0, command?.toLine ?? -1), [
        'name? Ada',
        'hi Ada',
      ]);
      await h.call('terminal_close', { sessionId: id });
    });

    // Once intermittent: input written while the shell was running (reading the command's first
    // line) was read without the shell being scheduled out, and a probe counting times scheduled in
    // never saw it wait; the probe now counts times it went to sleep (pty/sleep-count.ts).
    it('a command that asks midway ends a command wait early with INPUT_REQUIRED', {
      skip: needsBash,
    }, async () => {
      const id = await startShell(h, CASES[0] as ShellCase);
      const asked = await h.input(id, run('read -p "name? " n; echo "hi $n"', { timeoutMs: 5000 }));
      assertToolError(asked, 'INPUT_REQUIRED');
      assert.match(asked.data.error?.message ?? '', /its command has not finished/);
      await h.call('terminal_close', { sessionId: id });
    });
  });

  describe('the shell and what it runs', { concurrency: 1 }, () => {
    let h: Harness;
    const serverTmp = serverOfTheGroup((server) => {
      h = server;
    });

    it("a nested shell's marks are not taken for the outer shell's", {
      skip: needsBash,
    }, async () => {
      const id = await startShell(h, CASES[0] as ShellCase);
      // The inner bash prints OSC 133 marks of its own: without an aid, and with another one.
      const own = String.raw`printf "\033]133;D;0\007\033]133;A\007\033]133;D;0;aid=0123456789ab\007"`;
      const inner = await h.input(
        id,
        run(`PS1='inner> ' PROMPT_COMMAND='${own}' PS0='\\e]133;C\\a' bash --norc --noprofile`, {
          timeoutMs: 1500,
          stopOnInput: false,
        }),
      );
      assertToolError(inner, 'WAIT_TIMEOUT');
      await h.waitFor(id, (s) => /inner>$/.test(s.screen[s.cursor.row - 1] ?? ''));
      const inside = await h.input(id, run('false; echo inside', { timeoutMs: 1500 }));
      // The inner shell's own marks were not taken: the outer command (the inner shell) has not
      // finished, and it waits for input at its prompt.
      assertToolError(inside, 'INPUT_REQUIRED');
      const exited = await h.input(id, run('exit 7'));
      const command = waitsOf(exited)[0]?.command;
      assert.equal(command?.exitCode, 7, exited.text);
      assert.equal(exited.data.snapshot?.status, 'running', 'the outer shell runs on');
      await h.call('terminal_close', { sessionId: id });
    });

    it('the shell exiting ends the wait: exit 3, and set -e with a failing command', {
      skip: needsBash,
    }, async () => {
      for (const [line, code] of [
        ['exit 3', 3],
        ['set -e; false', 1],
      ] as const) {
        const id = await startShell(h, CASES[0] as ShellCase);
        const reply = await h.input(id, run(line));
        assert.equal(reply.isError, false, reply.text);
        const wait = waitsOf(reply)[0];
        assert.equal(wait?.reason, 'exited', reply.text);
        assert.equal(reply.data.snapshot?.status, 'exited');
        assert.equal(reply.data.snapshot?.exitCode, code);
        assert.match(reply.text, /wait #2: the shell exited during the command/);
        await h.call('terminal_close', { sessionId: id });
      }
    });

    it('set -e in the shell: a non-zero status that does not fail a command leaves it running', {
      skip: needsBash,
    }, async () => {
      const id = await startShell(h, CASES[0] as ShellCase);
      await h.input(id, run('set -e'));
      const reply = await h.input(id, run('! true'));
      assert.equal(waitsOf(reply)[0]?.command?.exitCode, 1, reply.text);
      assert.equal(reply.data.snapshot?.status, 'running', 'the hook did not end the shell');
    });

    it('the startup files are gone once the shell has started', {
      skip: existsSync('/proc/self') ? false : 'no /proc',
    }, async () => {
      const id = await startShell(h, CASES[0] as ShellCase);
      const pid = (await h.call('terminal_list')).data.sessions?.find(
        (s) => s.sessionId === id,
      )?.pid;
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const rc = argv[argv.indexOf('--rcfile') + 1] as string;
      assert.match(rc, /agent-tty-shell-t\d+-[^/]+\/bashrc$/);
      assert.equal(existsSync(dirname(rc)), false, 'removed at the first prompt');
      await h.call('terminal_close', { sessionId: id });
    });

    it('a shell whose startup replaces itself prints no marks: the timeout says so', {
      skip: needsBash,
    }, async () => {
      const home = freshHome({ '.bashrc': "export PS1='plain$ '; exec bash --norc --noprofile\n" });
      const { id } = await h.start({
        shell: 'bash',
        login: false,
        env: envFor(home),
      });
      await h.waitFor(id, (s) => /plain\$$/.test(s.screen[s.cursor.row - 1] ?? ''));
      const stopped = await h.input(id, run('true', { timeoutMs: 5000 }));
      const early = assertToolError(stopped, 'INPUT_REQUIRED');
      assert.match(early.message, /printed no command marks.*pattern/);
      const reply = await h.input(id, run('true', { timeoutMs: 800, stopOnInput: false }));
      const error = assertToolError(reply, 'WAIT_TIMEOUT');
      assert.match(error.message, /printed no command marks.*pattern/);
      // No mark came, so the directory stays until close; the file that held the nonce is empty.
      const [dir] = readdirSync(serverTmp).filter((n) => n.startsWith(`agent-tty-shell-${id}-`));
      assert.ok(dir, 'the private directory is kept until close');
      assert.equal(readFileSync(join(serverTmp, dir, 'bashrc'), 'utf8'), '');
      await h.call('terminal_close', { sessionId: id });
      assert.equal(existsSync(join(serverTmp, dir)), false, 'removed at close');
    });

    it('a program that is not an interactive shell: command:true is refused, nothing sent', async () => {
      const { id } = await h.start({ command: 'cat', login: false });
      const reply = await h.input(id, run('hello'));
      const error = assertToolError(reply, 'INVALID_ARGUMENT');
      assert.match(error.message, /^actions\[2\]: this session has no command marks.*"pattern"/);
      assert.equal(reply.data.inputSent, false);
      assert.equal(reply.data.failedActionIndex, 2);
      assert.doesNotMatch((await h.snapshot(id)).screen.join('\n'), /hello/);
      await h.call('terminal_close', { sessionId: id });
    });
  });

  describe('command marks off (--no-command-marks)', { concurrency: 1 }, () => {
    let on: Harness;
    let off: Harness;
    before(async () => {
      [on, off] = await Promise.all([startServer(), startServer({ args: ['--no-command-marks'] })]);
    });
    after(async () => {
      await Promise.all([on.close(), off.close()]);
    });

    const colourful: ShellCase[] = [
      {
        shell: 'bash',
        login: true,
        prompt: /[$#]$/,
        home: () => ({
          '.bash_profile': String.raw`PS1='\[\e[1;32m\]\u\[\e[0m\]:\[\e[34m\]\w\[\e[0m\] \$ '`,
        }),
      },
      {
        shell: 'zsh',
        login: false,
        prompt: /zsh>$/,
        home: () => ({ '.zshrc': "PROMPT='%B%F{green}%n%f%b:%F{blue}%~%f zsh> '\n" }),
      },
      {
        shell: 'fish',
        login: false,
        prompt: /fish>$/,
        home: () => ({
          '.config/fish/config.fish':
            'set -g fish_greeting\nfunction fish_prompt; set_color green; echo -n (prompt_pwd); set_color normal; echo -n " fish> "; end\n',
        }),
      },
    ];

    for (const c of colourful) {
      it(`${c.shell}: the screen is the same with and without marks`, {
        skip: skipUnless(c.shell),
      }, async () => {
        const home = freshHome(c.home());
        const screens = await Promise.all(
          [on, off].map(async (h) => {
            const { id } = await h.start({
              shell: c.shell,
              login: c.login,
              env: envFor(home),
              cwd: home,
              cols: 70,
              rows: 8,
            });
            await h.waitFor(id, (s) => c.prompt.test(s.screen[s.cursor.row - 1] ?? ''), 20_000);
            const first = await h.snapshot(id);
            // The line is typed and left to settle before Enter: fish colours it a moment later,
            // and an Enter sent at once raced that (a run without its colours, 1 in 4 on HTTP).
            await h.input(id, [{ type: 'text', text: 'echo "[$ZDOTDIR]"; printf partial' }]);
            await h.input(id, [{ type: 'key', key: 'Enter' }]);
            const after = await h.waitFor(
              id,
              (s) =>
                s.screen.join('\n').includes('partial') &&
                c.prompt.test(s.screen[s.cursor.row - 1] ?? ''),
            );
            await h.call('terminal_close', { sessionId: id });
            const { screen, styles, spans, cursor } = after;
            return { first: first.screen, screen, styles, spans, cursor };
          }),
        );
        assert.deepEqual(screens[0], screens[1]);
        assert.match(
          screens[0]?.screen.join('\n') ?? '',
          /^\[\]$/m,
          'ZDOTDIR as the shell was given it',
        );
      });
    }

    it('command:true without marks is refused before anything is sent', async () => {
      const home = freshHome(BASH_RC);
      const { id } = await off.start({ shell: 'bash', login: false, env: envFor(home) });
      await off.waitFor(id, (s) => /bash-custom>$/.test(s.screen[s.cursor.row - 1] ?? ''));
      const reply = await off.input(id, run('echo sent'));
      const error = assertToolError(reply, 'INVALID_ARGUMENT');
      assert.match(error.message, /--no-command-marks/);
      assert.equal(reply.data.inputSent, false);
      await off.call('terminal_close', { sessionId: id });
    });
  });
});
