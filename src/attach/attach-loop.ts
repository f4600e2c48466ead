/**
 * Attached: the session's frames to the person's terminal, what they type to the server, until
 * the detach key (Ctrl-\), the program's exit, the session's close or the server's end, each told
 * in one line on stderr. Takes the terminal's streams (process.stdin/stdout/stderr, which the
 * command has checked are a terminal), so it runs against any streams. A terminal that has not
 * reported its size is given a moment for it before attaching, and sizes it does not know are
 * never sent as changes (terminal-size.ts).
 * @see spec/attach.md (The command, Size)
 */
import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { openServerConnection, type ServerEntry } from './attach-client.js';
import { RESTORE_TERMINAL } from './frame.js';
import { encode, MAX_INPUT_CHUNK, type ServerMessage } from './protocol.js';
import { readTerminalSize, type TerminalSize } from './terminal-size.js';

/** Ctrl-\ : leaves the session running and the person back in their shell. */
const DETACH_BYTE = 0x1c;
/**
 * How long a terminal that reports no size (0x0) is given to report one before attaching without
 * it: `docker exec -t` sets it a moment after the start (its client retries for about a second).
 */
export const SIZE_WAIT_MS = 1000;
/** What an `attach` request says for a size the terminal has not reported. */
const UNKNOWN_SIZE: TerminalSize = { cols: 0, rows: 0 };

/** The person's terminal's screen: its size (undefined when unreadable; 'resize' on a change). */
type TerminalOut = Writable & {
  readonly columns: number | undefined;
  readonly rows: number | undefined;
};

/** The person's terminal: its keys, its screen, where notes go. */
interface TerminalStreams {
  readonly stdin: Readable & { setRawMode(raw: boolean): unknown };
  readonly stdout: TerminalOut;
  readonly stderr: Writable;
}

/** What attaching asks for: the session `sessionId` of `server`, typing or only watching. */
interface AttachTarget {
  readonly server: Pick<ServerEntry, 'path' | 'pid'>;
  readonly sessionId: string;
  readonly readOnly: boolean;
}

/** Attaches the terminal to the session; resolves with the command's exit code. */
export async function runAttachLoop(
  streams: TerminalStreams,
  target: AttachTarget,
  sizeWaitMs = SIZE_WAIT_MS,
): Promise<number> {
  const size =
    readTerminalSize(streams.stdout.columns, streams.stdout.rows) ??
    (await waitForTerminalSize(streams.stdout, sizeWaitMs));
  return attach(streams, target, size ?? UNKNOWN_SIZE);
}

/**
 * Resolves with the terminal's size once it reports one, or undefined after `ms`; says on the
 * terminal what it waits for, and takes that line away again.
 */
function waitForTerminalSize(stdout: TerminalOut, ms: number): Promise<TerminalSize | undefined> {
  const line = `agent-tty attach: waiting for this terminal's size (it says ${stdout.columns ?? '?'}x${stdout.rows ?? '?'})`;
  stdout.write(line);
  return new Promise((resolve) => {
    const done = (size: TerminalSize | undefined) => {
      clearTimeout(timer);
      stdout.off('resize', onResize);
      stdout.write('\r\x1b[2K');
      resolve(size);
    };
    const onResize = () => {
      const size = readTerminalSize(stdout.columns, stdout.rows);
      if (size) done(size);
    };
    const timer = setTimeout(() => done(undefined), ms);
    stdout.on('resize', onResize);
  });
}

function attach(
  { stdin, stdout, stderr }: TerminalStreams,
  { server, sessionId, readOnly }: AttachTarget,
  size: TerminalSize,
): Promise<number> {
  return new Promise((resolve) => {
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
      for (const line of [...notices.map((n) => `agent-tty: ${n}`), ...lines]) {
        stderr.write(`${line}\n`);
      }
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
      // A terminal back to no size (0x0) keeps the last one it reported (a server older than
      // sizes not known refuses 0).
      const now = readTerminalSize(stdout.columns, stdout.rows);
      if (now) socket.write(encode({ type: 'size', ...now }));
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

    const socket = openServerConnection(
      server.path,
      server.pid,
      { type: 'attach', sessionId, readOnly, ...size },
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
