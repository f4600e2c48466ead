/**
 * One attach connection, server side: says hello (naming, where peers are checked, the proof a
 * client shows its pid with), reads newline-delimited requests of at most MAX_CLIENT_LINE_BYTES,
 * waits REQUEST_TIMEOUT_MS at most for the first, checks who sent it, then answers `list` or
 * hands the connection to a watcher, which gets what the person types and their size. A message
 * out of place, too long or not of the protocol is refused in one line and the connection ends.
 * @see spec/attach.md
 */
import type { Socket } from 'node:net';
import { LineSplitter } from '../shared/line-splitter.js';
import { PeerProof } from './peer.js';
import {
  type ClientMessage,
  encode,
  MAX_CLIENT_LINE_BYTES,
  parseClientMessage,
  type ServerMessage,
} from './protocol.js';

const REQUEST_TIMEOUT_MS = 5000;

/** A first request to attach: the session, read-only or not, and the person's terminal size. */
export type AttachRequest = Extract<ClientMessage, { type: 'attach' }>;

/** What a connection needs of a watcher once attached (watcher.ts). */
export interface AttachedWatcher {
  input(data: string): void;
  resize(cols: number, rows: number): void;
  end(reason: 'error', message: string): void;
}

export interface ConnectionHandlers {
  /** Where peer proofs are created, or undefined when peers are not checked. */
  readonly proofDir: string | undefined;
  /** Why the first request is refused for who sent it, or undefined (peer-check.ts). */
  checkPeer(request: ClientMessage, proof: PeerProof | undefined): string | undefined;
  /** The answer to `list`. */
  describe(): ServerMessage;
  /** Attaches `socket`; undefined when it was told why not (and ended). */
  attach(socket: Socket, request: AttachRequest): AttachedWatcher | undefined;
}

/** Serves `socket` until it closes. */
export function serveConnection(socket: Socket, handlers: ConnectionHandlers): void {
  const splitter = new LineSplitter(MAX_CLIENT_LINE_BYTES);
  let watcher: AttachedWatcher | undefined;
  const timer = setTimeout(() => socket.destroy(), REQUEST_TIMEOUT_MS);
  let proof: PeerProof | undefined;
  const dropProof = () => {
    proof?.close();
    proof = undefined;
  };
  const refuse = (message: string) => {
    clearTimeout(timer);
    dropProof();
    if (watcher) watcher.end('error', message);
    else {
      socket.end(encode({ type: 'end', reason: 'error', message }));
    }
  };
  socket.on('error', () => clearTimeout(timer));
  socket.on('close', () => {
    clearTimeout(timer);
    dropProof();
  });
  if (handlers.proofDir !== undefined) {
    try {
      proof = PeerProof.create(handlers.proofDir);
    } catch (err) {
      socket.resume(); // read and drop what comes, so the line is not lost to a reset
      refuse(
        `agent-tty server ${process.pid} could not check which process is connecting (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); try again`,
      );
      return;
    }
  }
  socket.write(encode({ type: 'hello', ...(proof ? { proof: proof.path } : {}) }));
  socket.on('data', (chunk: Buffer) => {
    if (socket.destroyed || socket.writableEnded) return;
    splitter.push(chunk, (event) => {
      if (socket.destroyed || socket.writableEnded) return;
      if (event.kind === 'overlong') {
        refuse(`a message of ${event.bytes} bytes is over the ${MAX_CLIENT_LINE_BYTES}-byte limit`);
        return;
      }
      const parsed = parseClientMessage(event.text);
      if (!parsed.ok) {
        refuse(`not an attach protocol message (${parsed.reason})`);
        return;
      }
      const message = parsed.message;
      if (watcher) {
        if (message.type === 'input') watcher.input(message.data);
        else if (message.type === 'size') watcher.resize(message.cols, message.rows);
        else refuse(`"${message.type}" is only a first request`);
        return;
      }
      clearTimeout(timer);
      const refusal = handlers.checkPeer(message, proof);
      dropProof();
      if (refusal !== undefined) {
        refuse(refusal);
        return;
      }
      if (message.type === 'list') {
        socket.end(encode(handlers.describe()));
      } else if (message.type === 'attach') {
        watcher = handlers.attach(socket, message);
      } else {
        refuse(`the first request is "list" or "attach", not "${message.type}"`);
      }
    });
    // A line past the limit is refused as it streams, not when (if ever) it ends.
    if (splitter.overflowing && !socket.writableEnded) {
      refuse(`a message is over the ${MAX_CLIENT_LINE_BYTES}-byte limit`);
    }
  });
}
