import assert from 'node:assert/strict';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  ConnectionLimit,
  MAX_CONNECTIONS,
  REFUSED_LINGER_MS,
} from '../../../src/attach/connection-limit.js';
import { tempSocketDir } from '../../helpers/attach-socket.js';
import { waitUntil } from '../../helpers/wait.js';

/** A server whose connections pass `limit`; admitted ones stay open until the test ends them. */
async function limitedServer(path: string, limit: ConnectionLimit) {
  const admitted: Socket[] = [];
  const server: Server = createServer((socket) => {
    if (limit.admit(socket)) admitted.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { server, admitted };
}

/** Everything the server sent before it closed the connection (or 5 s passed). */
function connect(path: string): { socket: Socket; result: Promise<string> } {
  const socket = createConnection(path);
  setTimeout(() => socket.destroy(), 5000).unref();
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  const result = new Promise<string>((resolve) => {
    socket.on('error', () => resolve(text));
    socket.on('close', () => resolve(text));
  });
  return { socket, result };
}

describe('ConnectionLimit', { timeout: 60_000 }, () => {
  const { dir, remove } = tempSocketDir();
  after(remove);

  it('admits up to its limit, tells the next one why in one line, and admits again after a close', async () => {
    const limit = new ConnectionLimit(2);
    const { server, admitted } = await limitedServer(join(dir, 'a.sock'), limit);
    try {
      const first = connect(join(dir, 'a.sock'));
      const second = connect(join(dir, 'a.sock'));
      await waitUntil(() => admitted.length === 2, 'two connections admitted');
      assert.equal(limit.open, 2);

      const third = connect(join(dir, 'a.sock'));
      third.socket.write('{"type":"list"}\n'); // read and dropped, so the line is not lost
      const line = await third.result;
      assert.deepEqual(JSON.parse(line), {
        type: 'end',
        reason: 'error',
        message: `agent-tty server ${process.pid} has 2 attach connections open, its limit; detach one and try again`,
      });
      assert.equal(admitted.length, 2);

      first.socket.end();
      admitted[0]?.end();
      await first.result;
      await waitUntil(() => limit.open === 1, 'the closed connection no longer counted');
      const fourth = connect(join(dir, 'a.sock'));
      await waitUntil(() => admitted.length === 3, 'a connection admitted again');
      for (const c of [second, fourth]) c.socket.destroy();
      await waitUntil(() => limit.open === 0, 'every connection closed');
    } finally {
      for (const s of admitted) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('closes a refused connection that keeps its side open after REFUSED_LINGER_MS', async () => {
    const limit = new ConnectionLimit(1);
    const closedAfterMs: number[] = [];
    const accepted: Socket[] = [];
    const server = createServer({ allowHalfOpen: true }, (socket) => {
      accepted.push(socket);
      const acceptedAt = Date.now();
      socket.on('close', () => closedAfterMs.push(Date.now() - acceptedAt));
      limit.admit(socket);
    });
    await new Promise<void>((resolve) => server.listen(join(dir, 'b.sock'), resolve));
    const admitted = connect(join(dir, 'b.sock'));
    try {
      await waitUntil(() => limit.open === 1, 'one admitted');
      // A client that never ends its side: the server destroys the connection itself.
      const held = createConnection({ path: join(dir, 'b.sock'), allowHalfOpen: true });
      let text = '';
      held.setEncoding('utf8');
      held.on('data', (chunk: string) => {
        text += chunk;
      });
      held.on('error', () => undefined);
      await waitUntil(() => closedAfterMs.length === 1, 'the refused connection closed');
      assert.match(text, /has 1 attach connections open, its limit/);
      const [afterMs = 0] = closedAfterMs;
      assert.ok(afterMs >= REFUSED_LINGER_MS - 50 && afterMs < 5000, `closed after ${afterMs} ms`);
      held.destroy();
    } finally {
      admitted.socket.destroy();
      for (const socket of accepted) socket.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('closes a refusal at once, without a line, when as many refusals are lingering', async () => {
    const limit = new ConnectionLimit(0);
    const { server } = await limitedServer(join(dir, 'd.sock'), limit);
    try {
      assert.equal(await connect(join(dir, 'd.sock')).result, '');
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('defaults to MAX_CONNECTIONS', async () => {
    const limit = new ConnectionLimit();
    const { server, admitted } = await limitedServer(join(dir, 'c.sock'), limit);
    const clients: Socket[] = [];
    try {
      for (let i = 0; i < MAX_CONNECTIONS; i++) clients.push(connect(join(dir, 'c.sock')).socket);
      await waitUntil(() => admitted.length === MAX_CONNECTIONS, 'MAX_CONNECTIONS admitted');
      const over = connect(join(dir, 'c.sock'));
      assert.match(await over.result, new RegExp(`has ${MAX_CONNECTIONS} attach connections open`));
      assert.equal(admitted.length, MAX_CONNECTIONS);
    } finally {
      for (const s of [...clients, ...admitted]) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
