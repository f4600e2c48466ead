import assert from 'node:assert/strict';
import { existsSync, lstatSync, renameSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AttachServer } from '../../../src/attach/attach-server.js';
import { socketPath } from '../../../src/attach/socket-dir.js';
import { SessionRegistry } from '../../../src/session/registry.js';
import { silentLogger } from '../../../src/shared/log.js';
import { tempSocketDir } from '../../helpers/attach-socket.js';

/** A registry with no sessions (its factory is never asked for one). */
function emptyRegistry(): SessionRegistry {
  return new SessionRegistry({ maxSessions: 4, scrollbackLines: 100 }, () => {
    throw new Error('no session is started here');
  });
}

/** Sends `request` and returns every line the server sent until it closed the connection. */
function ask(path: string, request: unknown): Promise<unknown[]> {
  const socket = createConnection(path);
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  socket.write(`${JSON.stringify(request)}\n`);
  return new Promise((resolve, reject) => {
    socket.on('error', reject);
    socket.on('close', () =>
      resolve(
        text
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as unknown),
      ),
    );
  });
}

async function listenAt(path: string): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return server;
}

describe('AttachServer', { timeout: 30_000 }, () => {
  const { dir, remove } = tempSocketDir();
  after(remove);
  const start = (clientName = 'claude-code') =>
    AttachServer.listen({
      registry: emptyRegistry(),
      logger: silentLogger,
      dir,
      clientName: () => clientName,
      identifyPeers: false,
    });

  it("listens at the process's socket, 0600, in place of a stale one, and removes it on close", async () => {
    const path = socketPath(dir, process.pid);
    // A socket left by an earlier process with this pid.
    const stale = await listenAt(`${path}.old`);
    renameSync(`${path}.old`, path);
    await new Promise<void>((r) => stale.close(() => r()));
    assert.ok(lstatSync(path).isSocket());

    const server = await start();
    try {
      assert.equal(server.path, path);
      const stat = lstatSync(path);
      assert.ok(stat.isSocket());
      assert.equal(stat.mode & 0o777, 0o600);
    } finally {
      await server.close();
    }
    await server.close();
    assert.equal(existsSync(path), false);
  });

  it('answers list with the server, its client and its open sessions', async () => {
    const before = Date.now();
    const server = await start('cursor');
    try {
      const [hello, listing] = (await ask(server.path, { type: 'list' })) as [
        unknown,
        { startedAt: string },
      ];
      assert.deepEqual(hello, { type: 'hello' });
      assert.deepEqual(listing, {
        type: 'server',
        pid: process.pid,
        client: 'cursor',
        startedAt: listing.startedAt,
        sessions: [],
      });
      assert.ok(Date.parse(listing.startedAt) >= before - 1000);
    } finally {
      await server.close();
    }
  });

  it('tells an attach to a session it does not have which it has', async () => {
    const server = await start();
    try {
      const lines = await ask(server.path, {
        type: 'attach',
        sessionId: 't9',
        readOnly: false,
        cols: 80,
        rows: 24,
      });
      assert.deepEqual(lines.at(-1), {
        type: 'end',
        reason: 'error',
        message: `no session t9 in agent-tty server ${process.pid}; it has none open`,
      });
      assert.equal(server.watchers, 0);
    } finally {
      await server.close();
    }
  });

  it('gives the attach command with the pid while another server listens beside it', async () => {
    const alone = await start();
    try {
      assert.equal(alone.command('t1'), 'agent-tty attach t1');
    } finally {
      await alone.close();
    }
    const other = await listenAt(join(dir, '1.sock'));
    const server = await start();
    try {
      assert.equal(server.command('t1'), `agent-tty attach t1@${process.pid}`);
    } finally {
      await server.close();
      await new Promise<void>((r) => other.close(() => r()));
    }
  });
});
