/**
 * `agent-tty attach [SESSION]`, run by a person in their terminal. Without SESSION it lists the
 * user's running agent-tty servers and their sessions; with one (`t3`, or `t3@PID` when several
 * servers have a t3) it shows that session's screen live in the terminal's alternate screen and
 * sends what the person types to the program, until the detach key (Ctrl-\), the program's exit,
 * the session's close or the server's end, each told in one line. Sockets of servers that are
 * gone are removed on the way.
 * @see spec/attach.md
 */
import { lstatSync, unlinkSync } from 'node:fs';
import type { Socket } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { makeTextSafe } from '../screen/text-safety.js';
import { RESTORE_TERMINAL } from './frame.js';
import { encode, type ListedSession, MAX_INPUT_CHUNK, type ServerMessage } from './protocol.js';
import { openServerConnection } from './server-connection.js';
import { checkSocketDir, checkSocketDirPath, listSockets, socketDir } from './socket-dir.js';

/** Ctrl-\ : leaves the session running and the person back in their shell. */
export const DETACH_BYTE = 0x1c;
/** How long a server has to answer `list`. */
const LIST_TIMEOUT_MS = 2000;

type Env = Readonly<Record<string, string | undefined>>;

interface Output {
  out(text: string): void;
  err(text: string): void;
}

const HELP = `Usage: agent-tty attach [options] [SESSION]

Watch and type into a session of a running agent-tty server, as the same user.
Without SESSION: list the servers and their sessions.
SESSION is a session id (t3), or t3@PID when more than one server has a t3.

Options:
  --read-only   watch without typing
  --help        show this help

Keys: Ctrl-\\ detaches (the session keeps running). The agent owns the size;
a terminal smaller than the session is told how large it must be.`;

type ServerEntry = Extract<ServerMessage, { type: 'server' }> & { path: string };

export async function runAttachCommand(argv: readonly string[], env: Env): Promise<number> {
  const io: Output = {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
  };
  let readOnly = false;
  let target: string | undefined;
  for (const arg of argv) {
    if (arg === '--help' || arg === '-h') {
      io.out(`${HELP}\n`);
      return 0;
    }
    if (arg === '--read-only') readOnly = true;
    else if (arg.startsWith('-') || target !== undefined) {
      io.err(`agent-tty attach: unexpected "${arg}"; see agent-tty attach --help\n`);
      return 2;
    } else target = arg;
  }
  const dir = socketDir(env);
  try {
    checkSocketDirPath(dir);
  } catch (err) {
    io.err(`agent-tty attach: ${(err as Error).message}\n`);
    return 1;
  }
  if (!exists(dir)) {
    io.err(`agent-tty attach: no agent-tty server is running for you (${dir} does not exist)\n`);
    return target === undefined ? 0 : 1;
  }
  try {
    checkSocketDir(dir);
  } catch (err) {
    io.err(`agent-tty attach: ${(err as Error).message}\n`);
    return 1;
  }
  const listing = await listServers(dir);
  const { servers } = listing;
  if (target === undefined) {
    io.out(formatServers(listing, dir, process.stdout.isTTY ? process.stdout.columns : undefined));
    return 0;
  }
  const [sessionId, pidText] = target.split('@') as [string, string | undefined];
  const pid = pidText === undefined ? undefined : Number(pidText);
  const candidates = servers.filter(
    (s) =>
      (pid === undefined || s.pid === pid) && s.sessions.some((x) => x.sessionId === sessionId),
  );
  if (candidates.length === 0) {
    const answered = listing.unlisted.length > 0 ? ' in a server that answered' : '';
    io.err(
      `agent-tty attach: no session ${target} is open${answered}.\n${formatServers(listing, dir)}`,
    );
    return 1;
  }
  if (candidates.length > 1) {
    const names = candidates
      .map(
        (s) =>
          `  agent-tty attach ${sessionId}@${s.pid}   (${shown(s.client) || 'unknown client'})`,
      )
      .join('\n');
    io.err(
      `agent-tty attach: ${sessionId} is open in ${candidates.length} servers; name one:\n${names}\n`,
    );
    return 1;
  }
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    io.err('agent-tty attach: needs a terminal (stdin and stdout must be a TTY)\n');
    return 1;
  }
  const server = candidates[0] as ServerEntry;
  return attach(server, sessionId, readOnly, io);
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A server that answered `list` with a refusal (at its connection limit): pid and why. */
interface Unlisted {
  readonly pid: number;
  readonly message: string;
}

/** Asks every socket in `dir` for its sessions; removes the sockets no server listens on. */
async function listServers(dir: string): Promise<{ servers: ServerEntry[]; unlisted: Unlisted[] }> {
  const servers: ServerEntry[] = [];
  const unlisted: Unlisted[] = [];
  await Promise.all(
    listSockets(dir).map(async ({ path, pid }) => {
      const reply = await request(path, pid);
      if (reply === 'refused') {
        try {
          unlinkSync(path);
        } catch {
          // Removed by someone else.
        }
      } else if (reply?.type === 'server') servers.push({ ...reply, path });
      else if (reply?.type === 'end') unlisted.push({ pid, message: reply.message });
    }),
  );
  servers.sort((a, b) => a.pid - b.pid);
  unlisted.sort((a, b) => a.pid - b.pid);
  return { servers, unlisted };
}

type ListReply = Extract<ServerMessage, { type: 'server' | 'end' }>;

/**
 * One `list` request: the listing or the server's refusal, 'refused' when nothing listens,
 * undefined otherwise (no answer in time, a line that is not one).
 */
function request(path: string, pid: number): Promise<ListReply | 'refused' | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(undefined), LIST_TIMEOUT_MS);
    const done = (value: ListReply | 'refused' | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    const socket = openServerConnection(
      path,
      pid,
      { type: 'list' },
      {
        message: (message) =>
          done(message.type === 'server' || message.type === 'end' ? message : undefined),
        error: (err) => done(err.code === 'ECONNREFUSED' ? 'refused' : undefined),
        close: () => done(undefined),
      },
    );
  });
}

/**
 * Text a server reports from others (the agent's command, the MCP client's name), made safe to
 * print: controls become visible stand-ins, so none reaches the person's terminal.
 */
const shown = makeTextSafe;

/** `line` cut with an ellipsis to `width` characters, when a width is given. */
function cut(line: string, width: number | undefined): string {
  const chars = [...line];
  if (width === undefined || chars.length <= width) return line;
  return `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

function ago(ms: number): string {
  if (ms < 1000) return 'now';
  if (ms < 60_000) return `${Math.round(ms / 1000)}s ago`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)}m ago`;
  return `${Math.round(ms / 3_600_000)}h ago`;
}

function formatSession(s: ListedSession): string {
  const status = s.status === 'running' ? 'running' : 'exited';
  const watchers = s.watchers > 0 ? `${s.watchers} attached  ` : '';
  const command = s.command === null ? '(shell)' : shown(s.command);
  // The command last: on a narrow terminal it is what the line's end cuts.
  return `  ${shown(s.sessionId).padEnd(6)} ${status.padEnd(8)} ${`${s.cols}x${s.rows}`.padEnd(8)} changed ${ago(s.quietMs).padEnd(8)} ${watchers}${command}`;
}

/** The listing; on a terminal `width` columns wide, a session's line is cut to fit it. */
function formatServers(
  { servers, unlisted }: { servers: readonly ServerEntry[]; unlisted: readonly Unlisted[] },
  dir: string,
  width?: number,
): string {
  const lines: string[] = [];
  if (servers.length === 0 && unlisted.length === 0) {
    return `no agent-tty server is running for you (looked in ${dir})\n`;
  }
  for (const s of servers) {
    lines.push(
      `server ${s.pid} (${shown(s.client) || 'no client yet'}, started ${s.startedAt.slice(0, 19).replace('T', ' ')} UTC)`,
    );
    if (s.sessions.length === 0) lines.push('  no sessions');
    for (const session of s.sessions) lines.push(cut(formatSession(session), width));
  }
  for (const u of unlisted) lines.push(`server ${u.pid}: not listed: ${shown(u.message)}`);
  const qualify = servers.length + unlisted.length > 1 ? ' (or SESSION@PID)' : '';
  lines.push('', `attach with: agent-tty attach SESSION${qualify}; add --read-only to watch only`);
  return `${lines.join('\n')}\n`;
}

/** Attached: frames to the terminal, keys to the server, until one side ends it. */
function attach(
  server: ServerEntry,
  sessionId: string,
  readOnly: boolean,
  io: Output,
): Promise<number> {
  return new Promise((resolve) => {
    const stdin = process.stdin;
    const stdout = process.stdout;
    const decoder = new StringDecoder('utf8');
    const notices: string[] = [];
    let entered = false;
    let finished = false;

    const title = `agent-tty attach ${sessionId}${readOnly ? ' (read-only)' : ''} · Ctrl-\\ detaches`;
    const enter = () => {
      entered = true;
      stdin.setRawMode(true);
      stdin.resume();
      // The window title is saved (XTWINOPS 22) and given back (23) on the way out.
      stdout.write(`\x1b[22;0t\x1b]2;${title}\x07\x1b[?1049h\x1b[H\x1b[2J`);
    };
    const finish = (code: number, lines: readonly string[]) => {
      if (finished) return;
      finished = true;
      if (entered) {
        stdout.write(`${RESTORE_TERMINAL}\x1b[?1049l\x1b[23;0t`);
        stdin.setRawMode(false);
      }
      stdin.pause();
      stdin.off('data', onKeys);
      stdout.off('resize', onResize);
      socket.destroy();
      for (const line of [...notices.map((n) => `agent-tty: ${n}`), ...lines]) io.err(`${line}\n`);
      resolve(code);
    };
    const send = (text: string) => {
      for (let i = 0; i < text.length; i += MAX_INPUT_CHUNK) {
        socket.write(encode({ type: 'input', data: text.slice(i, i + MAX_INPUT_CHUNK) }));
      }
    };
    const onKeys = (chunk: Buffer) => {
      const detach = chunk.indexOf(DETACH_BYTE);
      const typed = detach === -1 ? chunk : chunk.subarray(0, detach);
      if (!readOnly && typed.length > 0) send(decoder.write(typed));
      if (detach !== -1) {
        finish(0, [
          `agent-tty: detached from ${sessionId}; it keeps running (agent-tty attach ${sessionId} to come back)`,
        ]);
      }
    };
    const onResize = () => {
      socket.write(encode({ type: 'size', cols: stdout.columns, rows: stdout.rows }));
    };
    const onMessage = (message: ServerMessage) => {
      switch (message.type) {
        case 'attached':
          enter();
          stdin.on('data', onKeys);
          stdout.on('resize', onResize);
          break;
        case 'frame':
          stdout.write(message.data);
          break;
        case 'notice':
          notices.push(message.message);
          stdout.write('\x07');
          break;
        case 'end': {
          const screen = message.reason === 'exited' ? (message.screen ?? []) : [];
          finish(message.reason === 'error' ? 1 : 0, [...screen, `agent-tty: ${message.message}`]);
          break;
        }
        default:
          break;
      }
    };

    const socket: Socket = openServerConnection(
      server.path,
      server.pid,
      { type: 'attach', sessionId, readOnly, cols: stdout.columns, rows: stdout.rows },
      {
        message: onMessage,
        error: (err) =>
          finish(1, [`agent-tty: the connection to server ${server.pid} failed (${err.message})`]),
        close: () =>
          finish(1, [
            `agent-tty: the agent-tty server (pid ${server.pid}) ended; session ${sessionId} is gone`,
          ]),
      },
    );
  });
}
