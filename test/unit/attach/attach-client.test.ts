import assert from 'node:assert/strict';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { listServers, openServerConnection } from '../../../src/attach/attach-client.js';
import type { ServerMessage } from '../../../src/attach/protocol.js';
import { startSocketServer, tempSocketDir } from '../../helpers/attach-socket.js';

const listing = (pid: number): ServerMessage => ({
  type: 'server',
  pid,
  client: 'claude-code',
  startedAt: '2026-01-02T03:04:05.000Z',
  sessions: [],
});

/** A socket file no server listens on, as a server killed outright leaves behind. */
async function staleSocket(path: string): Promise<void> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(`${path}.tmp`, resolve));
  // Closing unlinks the path it listened on; the socket moved away first stays.
  renameSync(`${path}.tmp`, path);
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe('listServers', () => {
  const { dir, remove } = tempSocketDir();
  after(remove);

  it('asks each server, lists the refusals apart and removes the sockets nobody listens on', async () => {
    const b = await startSocketServer(join(dir, '200.sock'), () => [listing(200)]);
    const a = await startSocketServer(join(dir, '100.sock'), () => [listing(100)]);
    const full = await startSocketServer(join(dir, '300.sock'), () => [
      { type: 'end', reason: 'error', message: 'too many connections' },
    ]);
    await staleSocket(join(dir, '400.sock'));
    writeFileSync(join(dir, '500.sock'), 'not a socket');
    try {
      const found = await listServers(dir);
      assert.deepEqual(
        found.servers.map((s) => [s.pid, s.path, s.client]),
        [
          [100, join(dir, '100.sock'), 'claude-code'],
          [200, join(dir, '200.sock'), 'claude-code'],
        ],
      );
      assert.deepEqual(found.unlisted, [{ pid: 300, message: 'too many connections' }]);
      assert.equal(existsSync(join(dir, '400.sock')), false, 'the stale socket is removed');
      assert.equal(existsSync(join(dir, '500.sock')), true, 'a file that is no socket is left');
      // A hello without a proof: the request carries no identity.
      assert.deepEqual(a.received, [{ type: 'list' }]);
      assert.deepEqual(b.received, [{ type: 'list' }]);
    } finally {
      await Promise.all([a.close(), b.close(), full.close()]);
    }
  });

  it('finds nothing in an empty or missing directory', async () => {
    assert.deepEqual(await listServers(join(dir, 'missing')), { servers: [], unlisted: [] });
  });
});

describe('openServerConnection', () => {
  const { dir, remove } = tempSocketDir();
  after(remove);

  it('makes its request once, after the hello, and hands on what follows', async () => {
    const server = await startSocketServer(join(dir, '1.sock'), () => [
      { type: 'hello' },
      { type: 'notice', message: 'hi' },
    ]);
    const messages: ServerMessage[] = [];
    const closed = new Promise<void>((resolve) => {
      const socket = openServerConnection(
        server.path,
        1,
        { type: 'list' },
        {
          message: (m) => {
            messages.push(m);
            socket.end();
          },
          error: (err) => assert.fail(err),
          close: resolve,
        },
      );
    });
    await closed;
    await server.close();
    // The second hello is not answered with a second request.
    assert.deepEqual(server.received, [{ type: 'list' }]);
    assert.deepEqual(messages, [{ type: 'notice', message: 'hi' }]);
  });

  it('reports a socket nobody listens on as ECONNREFUSED', async () => {
    const path = join(dir, '2.sock');
    await staleSocket(path);
    const code = await new Promise((resolve) => {
      openServerConnection(
        path,
        2,
        { type: 'list' },
        { message: () => {}, error: (err) => resolve(err.code), close: () => {} },
      );
    });
    assert.equal(code, 'ECONNREFUSED');
  });
});
