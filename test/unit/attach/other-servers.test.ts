import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  formatAttachCommand,
  OTHERS_FRESH_MS,
  OtherServers,
} from '../../../src/attach/other-servers.js';
import { tempSocketDir } from '../../helpers/attach-socket.js';

async function listenAt(path: string): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return server;
}

const closeServer = (server: Server) => new Promise<void>((r) => server.close(() => r()));

describe('formatAttachCommand', () => {
  it('names the bare id alone, and id@pid beside other servers', () => {
    assert.equal(formatAttachCommand('t3', 4242, false), 'agent-tty attach t3');
    assert.equal(formatAttachCommand('t3', 4242, true), 'agent-tty attach t3@4242');
  });
});

describe('OtherServers', { timeout: 60_000 }, () => {
  const { dir, remove } = tempSocketDir();
  after(remove);

  it('counts sockets of other pids only, and reuses its answer for OTHERS_FRESH_MS', async () => {
    let now = 0;
    const others = new OtherServers(dir, () => now);
    const own = await listenAt(join(dir, `${process.pid}.sock`));
    try {
      assert.equal(others.present(), false, 'its own socket is not another server');
      assert.equal(others.command('t1'), 'agent-tty attach t1');
      const other = await listenAt(join(dir, '1.sock'));
      try {
        now += OTHERS_FRESH_MS;
        assert.equal(others.present(), false, 'still the answer of OTHERS_FRESH_MS ago');
        now += 1;
        assert.equal(others.present(), true);
        assert.equal(others.command('t1'), `agent-tty attach t1@${process.pid}`);
      } finally {
        await closeServer(other);
      }
      now += OTHERS_FRESH_MS + 1;
      assert.equal(others.present(), false, 'the other server is gone');
    } finally {
      await closeServer(own);
    }
  });

  it('finds none in a directory that does not exist', () => {
    assert.equal(new OtherServers(join(dir, 'missing')).present(), false);
  });
});
