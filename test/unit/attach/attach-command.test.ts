import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { ServerMessage } from '../../../src/attach/protocol.js';
import { SOCKET_DIR_ENV } from '../../../src/attach/socket-dir.js';
import { startSocketServer, tempSocketDir } from '../../helpers/attach-socket.js';

const MODULE = fileURLToPath(new URL('../../../src/attach/attach-command.js', import.meta.url));

/**
 * Runs the command in a process of its own (it writes to the process's stdout and stderr), with
 * pipes for both: no terminal, as from a script.
 */
function runCommand(
  argv: readonly string[],
  dir: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = `const { runAttachCommand } = await import(${JSON.stringify(MODULE)});
process.exitCode = await runAttachCommand(process.argv.slice(1), process.env);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, '--', ...argv], {
    env: { ...process.env, [SOCKET_DIR_ENV]: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const listing = (pid: number): ServerMessage => ({
  type: 'server',
  pid,
  client: 'claude-code',
  startedAt: new Date().toISOString(),
  sessions: [
    {
      sessionId: 't1',
      command: 'bash',
      status: 'running',
      cols: 80,
      rows: 24,
      quietMs: 1200,
      watchers: 0,
    },
  ],
});

describe('runAttachCommand', { timeout: 60_000 }, () => {
  const { dir, remove } = tempSocketDir();
  after(remove);

  it('prints its help, and refuses an unknown option or a second session with exit code 2', async () => {
    const help = await runCommand(['--help'], dir);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: agent-tty attach \[options\] \[SESSION\]/);
    const unknown = await runCommand(['--bogus'], dir);
    assert.equal(unknown.code, 2);
    assert.equal(
      unknown.stderr,
      'agent-tty attach: unexpected "--bogus"; see agent-tty attach --help\n',
    );
    const two = await runCommand(['t1', 't2'], dir);
    assert.equal(two.code, 2);
    assert.match(two.stderr, /unexpected "t2"/);
  });

  it('says no server runs when the directory is missing: exit 0 for a listing, 1 for a session', async () => {
    const missing = join(dir, 'missing');
    const list = await runCommand([], missing);
    assert.equal(list.code, 0);
    assert.equal(
      list.stderr,
      `agent-tty attach: no agent-tty server is running for you (${missing} does not exist)\n`,
    );
    assert.equal((await runCommand(['t1'], missing)).code, 1);
  });

  it('refuses a relative directory and one open to other users', async () => {
    const relative = await runCommand([], 'relative/dir');
    assert.equal(relative.code, 1);
    assert.match(relative.stderr, /is a relative path/);
    const open = join(dir, 'open');
    mkdirSync(open);
    chmodSync(open, 0o755);
    const opened = await runCommand([], open);
    assert.equal(opened.code, 1);
    assert.match(opened.stderr, /has mode 0755, open to other users/);
  });

  it('lists the servers that answer, and names a session that is not open', async () => {
    const servers = join(dir, 'servers');
    mkdirSync(servers, { mode: 0o700 });
    const server = await startSocketServer(join(servers, `${process.pid}.sock`), (m) =>
      m.type === 'list' ? [listing(process.pid)] : [],
    );
    try {
      const list = await runCommand([], servers);
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stdout, new RegExp(`${process.pid}`));
      assert.match(list.stdout, /t1/);
      assert.match(list.stdout, /bash/);

      const wrong = await runCommand(['t5'], servers);
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /^agent-tty attach: no session t5 is open\./);

      const noTerminal = await runCommand(['t1'], servers);
      assert.equal(noTerminal.code, 1);
      assert.equal(
        noTerminal.stderr,
        'agent-tty attach: needs a terminal (stdin and stdout must be a TTY)\n',
      );
    } finally {
      await server.close();
    }
  });
});
