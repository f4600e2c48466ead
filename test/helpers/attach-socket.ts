/**
 * A stand-in attach server for unit tests of the client side: a real Unix socket that says hello
 * (without a proof, as a server where peers cannot be checked does), records each line a client
 * sends and answers as the test tells it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientMessage, ServerMessage } from '../../src/attach/protocol.js';
import { waitUntil } from './wait.js';

export interface SocketServer {
  readonly path: string;
  /** Every message received, in order, over all connections. */
  readonly received: ClientMessage[];
  /** The latest connection, once a client connected. */
  socket(): Promise<Socket>;
  /** Resolves once the latest connection has closed (everything it sent is in `received`). */
  ended(): Promise<void>;
  send(message: ServerMessage): Promise<void>;
  close(): Promise<void>;
}

/** A private temporary directory (0700, as mkdtemp makes it) removed by `remove`. */
export function tempSocketDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'att-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Listens at `path`; `answer` may reply to each message received (its replies are sent in order).
 */
export async function startSocketServer(
  path: string,
  answer: (message: ClientMessage) => readonly ServerMessage[] = () => [],
): Promise<SocketServer> {
  const received: ClientMessage[] = [];
  let latest: Socket | undefined;
  let latestClosed = false;
  const server: Server = createServer((socket) => {
    latest = socket;
    latestClosed = false;
    socket.on('close', () => {
      if (latest === socket) latestClosed = true;
    });
    socket.write(`${JSON.stringify({ type: 'hello' })}\n`);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('utf8');
      let end = buffered.indexOf('\n');
      while (end !== -1) {
        const message = JSON.parse(buffered.slice(0, end)) as ClientMessage;
        buffered = buffered.slice(end + 1);
        received.push(message);
        for (const reply of answer(message)) socket.write(`${JSON.stringify(reply)}\n`);
        end = buffered.indexOf('\n');
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const socket = async () => {
    await waitUntil(() => latest !== undefined, 'a client connected');
    return latest as Socket;
  };
  return {
    path,
    received,
    socket,
    ended: async () => {
      await socket();
      await waitUntil(() => latestClosed, 'the connection closed');
    },
    send: async (message) => {
      (await socket()).write(`${JSON.stringify(message)}\n`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        latest?.destroy();
        server.close(() => resolve());
      }),
  };
}
