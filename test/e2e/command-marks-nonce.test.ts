/**
 * The command-mark nonce is the shell's alone: a program run in the session looks for it in every
 * place such a program can read (the shell's command line and environment, the files they name,
 * the shell's open files, agent-tty's private directories, the session's recording) and prints
 * forged "finished, exit 0" marks with whatever it found and with guesses; the command wait still
 * ends when the program does, with its exit code 7, and the nonce the shell holds (which the
 * shell itself shows, `declare -f`) is not among what the program found. The startup files are
 * gone once the shell has started. The three shells run side by side.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { WaitReport } from '../../src/shared/contract/progress.js';
import { fixtureCommand, needsPython } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';
import { homeEnv, ShellHomes, skipUnlessShell } from '../helpers/shell-homes.js';
import { screenText, type ToolReply } from '../helpers/tool-calls.js';

const homes = new ShellHomes();

interface NonceCase {
  readonly shell: 'bash' | 'zsh' | 'fish';
  readonly login: boolean;
  readonly prompt: RegExp;
  readonly files: Record<string, string>;
  /** A command line with which the shell prints the nonce its hooks hold. */
  readonly show: string;
}

const GREP = "grep -o 'aid=[0-9a-f]*' | head -n 1";
const CASES: NonceCase[] = [
  {
    shell: 'bash',
    login: false,
    prompt: /nonce-bash>$/,
    files: { '.bashrc': "PS1='nonce-bash> '\n" },
    show: `declare -f | ${GREP}`,
  },
  {
    shell: 'zsh',
    login: false,
    prompt: /nonce-zsh>$/,
    files: { '.zshrc': "PS1='nonce-zsh> '\n" },
    show: `functions | ${GREP}`,
  },
  {
    shell: 'fish',
    login: true,
    prompt: /nonce-fish>$/,
    files: {
      '.config/fish/config.fish':
        'set -g fish_greeting\nfunction fish_prompt; echo -n "nonce-fish> "; end\n',
    },
    show: `functions __agent_tty_postexec | ${GREP}`,
  },
];

/** The waits of a terminal_input reply. */
const waitsOf = (reply: ToolReply) => (reply.data as { waits?: WaitReport[] }).waits ?? [];

const run = (text: string, timeoutMs = 10_000) => [
  { type: 'text', text },
  { type: 'key', key: 'Enter' },
  { type: 'wait', command: true, timeoutMs },
];

/**
 * The server's temporary directory, its own: other test files' servers, running beside this one,
 * have sessions named t1 too, whose start-up files may still be there.
 */
const serverTmp = mkdtempSync(join(tmpdir(), 'agent-tty-nonce-tmp-'));

/** agent-tty's private directories of session `id` in the server's temporary directory. */
const privateDirs = (id: string) =>
  readdirSync(serverTmp).filter((name) => name.startsWith(`agent-tty-shell-${id}-`));

// Side by side: each shell's program mostly sleeps (find-nonce.py waits 1.5 s before it exits).
describe('the command-mark nonce', { concurrency: true }, () => {
  let h: Harness;
  const records = mkdtempSync(join(tmpdir(), 'agent-tty-nonce-records-'));
  before(async () => {
    h = await startServer({ args: ['--record-dir', records], env: { TMPDIR: serverTmp } });
  });
  after(async () => {
    await h.close();
    homes.removeAll();
    rmSync(records, { recursive: true, force: true });
    rmSync(serverTmp, { recursive: true, force: true });
  });

  for (const c of CASES) {
    it(`${c.shell}: a program finds no nonce, and its forged marks do not end a command wait`, {
      skip: skipUnlessShell(c.shell) || needsPython,
    }, async () => {
      const home = homes.create(c.files);
      const started = await h.call('terminal_start', {
        shell: c.shell,
        login: c.login,
        env: homeEnv(home),
        cols: 100,
        rows: 20,
      });
      const id = started.data.sessionId as string;
      const recording = (started.data as { recording?: string }).recording as string;
      let nonce: string | undefined;
      try {
        assert.ok(recording, started.text);
        await h.waitFor(id, (s) => c.prompt.test(s.screen[s.cursor.row - 1] ?? ''), 20_000);
        assert.deepEqual(privateDirs(id), [], 'the startup files are gone once the shell started');

        const reply = await h.input(id, run(fixtureCommand('find-nonce.py', recording, records)));
        assert.equal(reply.isError, false, reply.text);
        const wait = waitsOf(reply)[0];
        assert.match(reply.text, /searched \d+ files/);
        assert.equal(wait?.reason, 'finished', reply.text);
        assert.equal(wait?.command?.exitCode, 7, `the program's own exit code: ${reply.text}`);
        assert.ok((wait?.elapsedMs ?? 0) >= 1400, `ended after ${wait?.elapsedMs} ms`);

        await h.input(id, run(c.show));
        nonce = /aid=([0-9a-f]{12})\s*$/m.exec(screenText(await h.snapshot(id)))?.[1];
        assert.ok(nonce, 'the shell shows the nonce its hooks hold');
        const candidates = readFileSync(join(home, 'nonce-candidates'), 'utf8').split('\n');
        assert.ok(!candidates.includes(nonce), `the program found the nonce ${nonce}`);
      } finally {
        await h.call('terminal_close', { sessionId: id });
      }
      assert.ok(
        !readFileSync(recording, 'utf8').includes(nonce as string),
        'the recording hides it',
      );
    });
  }
});
