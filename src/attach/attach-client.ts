/**
 * The client's end of the attach sockets. One connection: connects, waits for the server's hello,
 * shows which process it is when the hello asks (opens the proof file it names and holds it until
 * the server answers, attach/peer.ts), makes its one request, then hands the server's messages
 * on. Discovery: asks every server in the socket directory for its sessions, removing the sockets
 * no server listens on. Used by `agent-tty attach` for listing and for attaching.
 * @see spec/attach.md (Socket and protocol)
 */
import { closeSync, constants, openSync, unlinkSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { LineSplitter } from '../shared/line-splitter.js';
import {
  type ClientMessage,
  encode,
  MAX_SERVER_LINE_BYTES,
  parseServerMessage,
  type ServerMessage,
} from './protocol.js';
import { listSockets } from './socket-dir.js';

/** How long a server has to answer `list`. */
const LIST_TIMEOUT_MS = 2000;

type Request = Extract<ClientMessage, { type: 'list' | 'attach' }>;

interface ConnectionHandlers {
  /** A message after the hello. */
  readonly message: (message: ServerMessage) => void;
  readonly error: (err: NodeJS.ErrnoException) => void;
  readonly close: () => void;
}

/** Only a path of this form is opened: a descriptor of the server that said hello. */
const PROOF_PATH = /^\/proc\/(\d+)\/fd\/\d+$/;

/** Connects to the server at `path` (its pid `serverPid`) and makes `request` once it says hello. */
export function openServerConnection(
  path: string,
  serverPid: number,
  request: Request,
  handlers: ConnectionHandlers,
): Socket {
  const socket = connect(path);
  const splitter = new LineSplitter(MAX_SERVER_LINE_BYTES);
  let proofFd: number | undefined;
  let asked = false;
  const dropProof = () => {
    if (proofFd === undefined) return;
    try {
      closeSync(proofFd);
    } catch {
      // Already closed.
    }
    proofFd = undefined;
  };
  socket.on('data', (chunk: Buffer) =>
    splitter.push(chunk, (event) => {
      const message = event.kind === 'line' ? parseServerMessage(event.text) : undefined;
      if (!message) return;
      if (message.type === 'hello') {
        if (asked) return;
        asked = true;
        proofFd = openProof(message.proof, serverPid);
        const identity = proofFd === undefined ? {} : { pid: process.pid, proofFd };
        socket.write(encode({ ...request, ...identity }));
        return;
      }
      // The server has checked the proof once it answers.
      dropProof();
      handlers.message(message);
    }),
  );
  socket.on('error', (err: NodeJS.ErrnoException) => {
    dropProof();
    handlers.error(err);
  });
  socket.on('close', () => {
    dropProof();
    handlers.close();
  });
  return socket;
}

/**
 * Opens the proof file a hello names, read-only and without waiting or taking a terminal; undefined
 * when there is none or it is not a descriptor of that server (the server then says why it refuses).
 */
function openProof(path: string | undefined, serverPid: number): number | undefined {
  if (path === undefined) return undefined;
  const match = PROOF_PATH.exec(path);
  if (!match || Number(match[1]) !== serverPid) return undefined;
  try {
    return openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return undefined;
  }
}

/** A server that answered `list`, and its socket. */
export type ServerEntry = Extract<ServerMessage, { type: 'server' }> & { readonly path: string };

/** A server that answered `list` with a refusal (at its connection limit): pid and why. */
interface Unlisted {
  readonly pid: number;
  readonly message: string;
}

/** What the servers in the socket directory said, each kind by pid. */
export interface Listing {
  readonly servers: readonly ServerEntry[];
  readonly unlisted: readonly Unlisted[];
}

/** Asks every socket in `dir` for its sessions; removes the sockets no server listens on. */
export async function listServers(dir: string): Promise<Listing> {
  const servers: ServerEntry[] = [];
  const unlisted: Unlisted[] = [];
  await Promise.all(
    listSockets(dir).map(async ({ path, pid }) => {
      const reply = await requestList(path, pid);
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
function requestList(path: string, pid: number): Promise<ListReply | 'refused' | undefined> {
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
