/**
 * The client's PATH wins over the login profile, and the profile still adds what the client
 * lacks (spec/tools.md, "PATH"). As a normal user (AGENT_TTY_TEST_USER when the tests run as
 * root), with a fresh HOME whose .profile appends a directory: a server whose PATH starts with a
 * newer `node` runs that node in a default command, in sh, bash, zsh and fish, and in an
 * interactive bash, zsh and fish; a server started with a bare environment (`env -i HOME=…`)
 * still finds the program the profile puts on PATH.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { which } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';
import { testUser } from '../helpers/test-user.js';
import { type Snapshot, screenText } from '../helpers/tool-calls.js';

/** One line that shows which node runs, that the profile's directory is on PATH, and no private variable. */
const PROBE = 'node --version; from-profile; printenv AGENT_TTY_CLIENT_PATH || echo no-private';

/**
 * A HOME the server's user owns: .profile appends ~/profile-bin (Debian's /etc/profile sets PATH
 * before it); zsh's and fish's profiles put the system's directories first and append it;
 * ~/node99 has a newer node.
 */
function makeHome(): string {
  const home = mkdtempSync('/tmp/agent-tty-path-');
  const files: Record<string, string> = {
    '.profile': 'PATH="$PATH:$HOME/profile-bin"\nexport PATH\n',
    // As macOS's path_helper does: the system's directories first, the client's after them.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: zsh syntax.
    '.zprofile': 'path=(/usr/local/bin /usr/bin /bin "${path[@]}" "$HOME/profile-bin")\n',
    '.zshrc': 'PS1="zsh> "\n',
    '.config/fish/config.fish':
      'set -gx PATH /usr/local/bin /usr/bin /bin $PATH $HOME/profile-bin\nfunction fish_prompt; echo "fish> "; end\n',
    'profile-bin/from-profile': '#!/bin/sh\necho from-the-profile\n',
    'node99/node': '#!/bin/sh\necho v99.0.0\n',
  };
  mkdirSync(join(home, '.local/share/fish/generated_completions'), { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(home, name, '..'), { recursive: true });
    writeFileSync(join(home, name), text);
    if (name.includes('bin/') || name.startsWith('node99/')) chmodSync(join(home, name), 0o755);
  }
  chmodSync(home, 0o755);
  if (testUser?.name) execFileSync('chown', ['-R', `${testUser.name}:`, home]);
  return home;
}

const SHELLS = ['sh', 'bash', 'zsh', 'fish'] as const;
const skipShell = (shell: string) => !which(shell) && `${shell} is not installed`;

describe('the client PATH wins over the login profile', () => {
  let home: string;
  let h: Harness;
  let bare: Harness;

  before(async () => {
    home = makeHome();
    const prefix = [...(testUser?.prefix ?? []), 'env'];
    h = await startServer({
      prefix: [...prefix, `HOME=${home}`, `PATH=${home}/node99:${process.env.PATH ?? ''}`],
      cwd: home,
    });
    bare = await startServer({ prefix: [...prefix, '-i', `HOME=${home}`], cwd: home });
  });
  after(async () => {
    await h?.close();
    await bare?.close();
    rmSync(home, { recursive: true, force: true });
  });

  for (const shell of SHELLS) {
    it(`${shell}: a default command runs the client's node and finds the profile's program`, {
      skip: skipShell(shell),
    }, async () => {
      const reply = await h.call('terminal_start', {
        command: PROBE,
        shell,
        waitForExit: true,
        autoClose: true,
        timeoutMs: 15_000,
      });
      const text = screenText(reply.data.snapshot as Snapshot);
      assert.match(text, /^v99\.0\.0$/m, text);
      assert.match(text, /^from-the-profile$/m, text);
      assert.match(text, /^no-private$/m, text);
    });
  }

  for (const shell of ['bash', 'zsh', 'fish'] as const) {
    it(`${shell}: an interactive shell runs the client's node and finds the profile's program`, {
      skip: skipShell(shell),
    }, async () => {
      const { id } = await h.start({ shell, env: { PS1: '$ ' } });
      try {
        const reply = await h.input(id, [
          { type: 'wait', pattern: '[$#>] ?$', timeoutMs: 15_000, stopOnInput: false },
          { type: 'text', text: PROBE },
          { type: 'key', key: 'Enter' },
          { type: 'wait', command: true, timeoutMs: 15_000 },
        ]);
        const text = screenText(reply.data.snapshot as Snapshot);
        assert.match(text, /^v99\.0\.0$/m, text);
        assert.match(text, /^from-the-profile$/m, text);
        assert.match(text, /^no-private$/m, text);
      } finally {
        await h.call('terminal_close', { sessionId: id });
      }
    });
  }

  it('a server started with a bare environment finds what the profile puts on PATH', async () => {
    for (const shell of [undefined, '/bin/bash']) {
      const reply = await bare.call('terminal_start', {
        command: 'from-profile',
        ...(shell ? { shell } : {}),
        waitForExit: true,
        autoClose: true,
        timeoutMs: 15_000,
      });
      const text = screenText(reply.data.snapshot as Snapshot);
      assert.match(text, /^from-the-profile$/m, `${shell ?? 'default shell'}: ${text}`);
    }
  });
});
