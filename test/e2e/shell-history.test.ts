/**
 * Shell history stays in the session: commands typed into an agent's interactive bash, zsh or
 * fish do not reach the history files in the user's home, up-arrow still works inside the
 * session, the session's own history file is gone after close, and a caller who names HISTFILE
 * (or fish_history) in env gets the shell's usual behaviour. Each shell runs with HOME set to a
 * fresh directory, so the real home is never touched.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { which } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';
import { screenText } from '../helpers/tool-calls.js';

const MARKER = 'agent_tty_history_probe';

function readIfExists(path: string): string {
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

describe('shell history', () => {
  let h: Harness;
  const homes: string[] = [];
  before(async () => {
    h = await startServer();
  });
  after(async () => {
    await h.close();
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  });

  function freshHome(): string {
    const home = mkdtempSync(join(tmpdir(), 'agent-tty-home-'));
    homes.push(home);
    // Without it, fish's first run spends a minute of CPU generating completions.
    mkdirSync(join(home, '.local/share/fish/generated_completions'), { recursive: true });
    return home;
  }

  /** Starts `shell` interactively with `env`, runs `lines` one by one, and returns the session. */
  async function runLines(
    shell: string,
    env: Record<string, string>,
    lines: string[],
  ): Promise<{ id: string; text: string }> {
    const { id } = await h.start({ shell, login: false, env, cols: 100, rows: 30 });
    await h.waitFor(id, (s) => /[$#>] ?$/m.test(screenText(s)), 20_000);
    let text = '';
    for (const [i, line] of lines.entries()) {
      await h.input(id, [
        { type: 'text', text: line },
        { type: 'key', key: 'Enter' },
      ]);
      text = screenText(
        await h.waitFor(id, (s) => screenText(s).includes(`done${i}`), 20_000, {
          settleMs: 50,
          settleTimeoutMs: 2000,
        }),
      );
    }
    return { id, text };
  }

  /** `command` and a line that echoes done<i> once it has run (the doneN text is in quotes). */
  const step = (command: string, i: number) => `${command}; echo "done""${i}"`;

  it('bash: the history file is the session’s own, up-arrow works, and it is gone after close', async () => {
    const home = freshHome();
    const { id, text } = await runLines('bash', { HOME: home, PS1: '$ ' }, [
      step(`echo ${MARKER}_1`, 0),
      step('history -a; echo "HF=$HISTFILE"; test -s "$HISTFILE" && echo written', 1),
    ]);
    const histfile = /^HF=(.+)$/m.exec(text)?.[1] ?? '';
    assert.match(histfile, /agent-tty-history-t\d+-[^/]+\/history$/, text);
    assert.match(text, /^written$/m, 'bash wrote its history to the session file');
    assert.ok(!histfile.startsWith(home), 'not in the home directory');
    // Up-arrow twice reaches the marker command within the session.
    await h.input(id, [
      { type: 'key', key: 'Up' },
      { type: 'key', key: 'Up' },
      { type: 'key', key: 'Enter' },
    ]);
    await h.waitFor(id, (s) => screenText(s).split(`\n${MARKER}_1`).length === 3, 10_000);
    await h.call('terminal_close', { sessionId: id });
    assert.equal(existsSync(dirname(histfile)), false, 'the session history is removed at close');
    assert.equal(readIfExists(join(home, '.bash_history')).includes(MARKER), false);
  });

  it('bash: a HISTFILE in env wins, and the command lands there', async () => {
    const home = freshHome();
    const file = join(home, '.bash_history');
    const { id } = await runLines('bash', { HOME: home, PS1: '$ ', HISTFILE: file }, [
      step(`echo ${MARKER}_2`, 0),
    ]);
    await h.call('terminal_close', { sessionId: id });
    assert.match(readIfExists(file), new RegExp(`${MARKER}_2`));
  });

  const zsh = which('zsh');
  it('zsh: commands stay out of ~/.zsh_history, also when .zshrc fills in an empty HISTFILE', {
    skip: zsh ? false : 'zsh is not installed',
  }, async () => {
    const home = freshHome();
    // What oh-my-zsh and prezto do: a HISTFILE of "" would be replaced by ~/.zsh_history.
    writeFileSync(
      join(home, '.zshrc'),
      '[ -z "$HISTFILE" ] && HISTFILE="$HOME/.zsh_history"\nSAVEHIST=1000\nHISTSIZE=1000\nPS1="$ "\n',
    );
    const env = { HOME: home, ZDOTDIR: home };
    const quiet = await runLines('zsh', env, [step(`echo ${MARKER}_3`, 0)]);
    await h.call('terminal_close', { sessionId: quiet.id });
    assert.equal(readIfExists(join(home, '.zsh_history')).includes(MARKER), false);
    const file = join(home, '.zsh_history');
    const kept = await runLines('zsh', { ...env, HISTFILE: file }, [step(`echo ${MARKER}_4`, 0)]);
    await h.call('terminal_close', { sessionId: kept.id });
    assert.match(readIfExists(file), new RegExp(`${MARKER}_4`));
  });

  const fish = which('fish');
  it('fish: commands stay out of fish_history; fish_history in env wins', {
    skip: fish ? false : 'fish is not installed',
  }, async () => {
    const home = freshHome();
    const file = join(home, '.local/share/fish/fish_history');
    const env = { HOME: home, XDG_DATA_HOME: join(home, '.local/share') };
    const quiet = await runLines('fish', env, [`echo ${MARKER}_5; echo "done""0"`]);
    await h.call('terminal_close', { sessionId: quiet.id });
    assert.equal(readIfExists(file).includes(MARKER), false);
    const kept = await runLines('fish', { ...env, fish_history: 'fish' }, [
      `echo ${MARKER}_6; echo "done""0"`,
    ]);
    await h.call('terminal_close', { sessionId: kept.id });
    assert.match(readIfExists(file), new RegExp(`${MARKER}_6`));
  });
});
