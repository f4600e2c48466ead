/**
 * `agent-tty attach [SESSION]`, run by a person in their terminal: parses its arguments, finds
 * the user's servers (attach-client.ts) and either lists them and their sessions (listing.ts) or
 * attaches this terminal to the session named (attach-loop.ts). Sockets of servers that are gone
 * are removed on the way.
 * @see spec/attach.md
 */
import { lstatSync } from 'node:fs';
import { listServers } from './attach-client.js';
import { runAttachLoop } from './attach-loop.js';
import { formatListing, pickServer } from './listing.js';
import { checkSocketDir, checkSocketDirPath, socketDir } from './socket-dir.js';
import { readTerminalSize } from './terminal-size.js';

type Env = Readonly<Record<string, string | undefined>>;

const HELP = `Usage: agent-tty attach [options] [SESSION]

Watch and type into a session of a running agent-tty server, as the same user.
Without SESSION: list the servers and their sessions.
SESSION is a session id (t3), or t3@PID when more than one server has a t3.

Options:
  --read-only   watch without typing
  --help        show this help

Keys: Ctrl-\\ detaches (the session keeps running). The agent owns the size;
a terminal smaller than the session is told how large it must be.`;

/** Runs the command on this process's terminal; resolves with its exit code. */
export async function runAttachCommand(argv: readonly string[], env: Env): Promise<number> {
  const { stdin, stdout, stderr } = process;
  const err = (text: string) => stderr.write(`agent-tty attach: ${text}\n`);
  let readOnly = false;
  let target: string | undefined;
  for (const arg of argv) {
    if (arg === '--help' || arg === '-h') {
      stdout.write(`${HELP}\n`);
      return 0;
    }
    if (arg === '--read-only') readOnly = true;
    else if (arg.startsWith('-') || target !== undefined) {
      err(`unexpected "${arg}"; see agent-tty attach --help`);
      return 2;
    } else target = arg;
  }
  const dir = socketDir(env);
  try {
    checkSocketDirPath(dir);
  } catch (error) {
    err((error as Error).message);
    return 1;
  }
  if (!exists(dir)) {
    err(`no agent-tty server is running for you (${dir} does not exist)`);
    return target === undefined ? 0 : 1;
  }
  try {
    checkSocketDir(dir);
  } catch (error) {
    err((error as Error).message);
    return 1;
  }
  const listing = await listServers(dir);
  if (target === undefined) {
    // A terminal that has not reported its width (0) gets lines of any length.
    const width = stdout.isTTY ? readTerminalSize(stdout.columns, stdout.rows)?.cols : undefined;
    stdout.write(formatListing(listing, dir, width));
    return 0;
  }
  const picked = pickServer(listing, target, dir);
  if ('error' in picked) {
    stderr.write(picked.error);
    return 1;
  }
  if (!stdin.isTTY || !stdout.isTTY) {
    err('needs a terminal (stdin and stdout must be a TTY)');
    return 1;
  }
  return runAttachLoop({ stdin, stdout, stderr }, { ...picked, readOnly });
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
