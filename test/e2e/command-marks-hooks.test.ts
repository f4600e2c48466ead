/**
 * Command marks beside the user's own prompt hooks: with a bash-preexec-style ~/.bashrc (a DEBUG
 * trap, its precmd entry put first in PROMPT_COMMAND at the first prompt), with a prompt
 * program's init that takes PROMPT_COMMAND and PS0 over, and with zsh precmd/preexec users, each
 * command wait reports the command's own exit code, and the user's hooks run exactly as they do
 * without marks: the same calls, arguments and statuses, compared with a server started with
 * --no-command-marks. Where another hook runs before ours, the wait reports no exit code and
 * says why, never a wrong one. The fixtures are in test/fixtures/shell/. The cases run side by
 * side, each in sessions of its own.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { WaitReport } from '../../src/shared/contract/progress.js';
import { FIXTURES } from '../helpers/paths.js';
import { type Harness, startServer } from '../helpers/server.js';
import { homeEnv, ShellHomes, skipUnlessShell } from '../helpers/shell-homes.js';
import type { Snapshot, ToolReply } from '../helpers/tool-calls.js';

const homes = new ShellHomes();

interface HookCase {
  readonly name: string;
  readonly shell: 'bash' | 'zsh';
  /** The fixture in test/fixtures/shell/ that becomes ~/.bashrc or ~/.zshrc. */
  readonly fixture: string;
}

const CASES: HookCase[] = [
  { name: 'bash with a bash-preexec-style .bashrc', shell: 'bash', fixture: 'preexec-like.bashrc' },
  {
    name: 'bash with a prompt program that takes PROMPT_COMMAND and PS0 over at the first prompt',
    shell: 'bash',
    fixture: 'starship-like.bashrc',
  },
  {
    name: 'bash with a DEBUG trap armed by its own PROMPT_COMMAND hook',
    shell: 'bash',
    fixture: 'debug-trap.bashrc',
  },
  {
    name: 'zsh with precmd/preexec users, one reordering, one resetting',
    shell: 'zsh',
    fixture: 'hooks.zshrc',
  },
];

const COMMANDS = ['false', '(exit 3)', 'true'];

/** The waits of a terminal_input reply. */
const waitsOf = (reply: ToolReply) => (reply.data as { waits?: WaitReport[] }).waits ?? [];

/** The command count the fixtures' prompts end with (`… 3> `), when the cursor is at a prompt. */
function promptNumber(s: Snapshot): number | undefined {
  const match = /(\d+)>\s*$/.exec(s.screen[s.cursor.row - 1] ?? '');
  return match ? Number(match[1]) : undefined;
}

/** A command wait's report (exitCodeUnknown: why it has no exit code). */
type CommandReport = NonNullable<WaitReport['command']>;

interface Run {
  /** Each command wait's report (marks on only). */
  readonly reports: (CommandReport | undefined)[];
  /** What the user's hooks logged. */
  readonly log: string;
}

/**
 * Starts `shell` with `fixture` as its rc file in a fresh home, types each command and waits for
 * the next prompt (with a command wait first when `marks`), and returns what the hooks logged.
 */
async function runCommands(
  h: Harness,
  shell: string,
  fixture: string,
  commands: readonly string[],
  marks: boolean,
): Promise<Run> {
  const rc = shell === 'zsh' ? '.zshrc' : '.bashrc';
  const home = homes.create({ [rc]: readFileSync(join(FIXTURES, 'shell', fixture), 'utf8') });
  const { id } = await h.start({ shell, login: false, env: homeEnv(home), cols: 80, rows: 12 });
  const reports: Run['reports'] = [];
  try {
    let n = promptNumber(await h.waitFor(id, (s) => promptNumber(s) !== undefined, 20_000)) ?? 0;
    for (const text of commands) {
      const typed = [
        { type: 'text', text },
        { type: 'key', key: 'Enter' },
      ];
      if (marks) {
        const reply = await h.input(id, [
          ...typed,
          { type: 'wait', command: true, timeoutMs: 5000 },
        ]);
        assert.equal(reply.isError, false, `${text}: ${reply.text}`);
        reports.push(waitsOf(reply)[0]?.command);
      } else {
        await h.input(id, typed);
      }
      n += 1;
      await h.waitFor(id, (s) => promptNumber(s) === n);
    }
  } finally {
    await h.call('terminal_close', { sessionId: id });
  }
  const log = join(home, 'hooks.log');
  return { reports, log: existsSync(log) ? readFileSync(log, 'utf8') : '' };
}

describe('command marks beside the user’s prompt hooks', { concurrency: true }, () => {
  let on: Harness;
  let off: Harness;
  before(async () => {
    [on, off] = await Promise.all([startServer(), startServer({ args: ['--no-command-marks'] })]);
  });
  after(async () => {
    await Promise.all([on.close(), off.close()]);
    homes.removeAll();
  });

  for (const c of CASES) {
    it(`${c.name}: exit codes 1, 3, 0; the hooks run as without marks`, {
      skip: skipUnlessShell(c.shell),
    }, async () => {
      const [marked, plain] = await Promise.all([
        runCommands(on, c.shell, c.fixture, COMMANDS, true),
        runCommands(off, c.shell, c.fixture, COMMANDS, false),
      ]);
      assert.deepEqual(
        marked.reports.map((r) => r?.exitCode),
        [1, 3, 0],
        JSON.stringify(marked.reports),
      );
      assert.ok(plain.log.length > 0, 'the hooks logged their calls');
      assert.equal(marked.log, plain.log, 'the same hook calls, arguments and statuses');
    });
  }

  it('bash: a hook folded in before ours: no exit code and why, then right again', {
    skip: skipUnlessShell('bash'),
  }, async () => {
    const commands = ['false', 'false', '(exit 3)'];
    const [marked, plain] = await Promise.all([
      runCommands(on, 'bash', 'folding.bashrc', commands, true),
      runCommands(off, 'bash', 'folding.bashrc', commands, false),
    ]);
    const [first, second, third] = marked.reports;
    assert.equal(first?.exitCode, undefined, `never a wrong code: ${JSON.stringify(first)}`);
    assert.match(first?.exitCodeUnknown ?? '', /another prompt hook ran before/);
    assert.equal(second?.exitCode, 1, JSON.stringify(second));
    assert.equal(second?.exitCodeUnknown, undefined);
    assert.equal(third?.exitCode, 3, JSON.stringify(third));
    assert.equal(marked.log, plain.log, 'the folding hook runs as without marks');
  });

  it('the text of a wait without an exit code says why', {
    skip: skipUnlessShell('bash'),
  }, async () => {
    const home = homes.create({
      '.bashrc': readFileSync(join(FIXTURES, 'shell', 'folding.bashrc'), 'utf8'),
    });
    const { id } = await on.start({ shell: 'bash', login: false, env: homeEnv(home) });
    try {
      await on.waitFor(id, (s) => promptNumber(s) !== undefined, 20_000);
      const reply = await on.input(id, [
        { type: 'text', text: 'false' },
        { type: 'key', key: 'Enter' },
        { type: 'wait', command: true, timeoutMs: 5000 },
      ]);
      assert.match(
        reply.text,
        /wait #2: command finished: exit code unknown \(another prompt hook ran before[^)]*\), no output/,
      );
    } finally {
      await on.call('terminal_close', { sessionId: id });
    }
  });
});
