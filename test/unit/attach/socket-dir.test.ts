import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  checkSocketDir,
  ensureSocketDir,
  listSockets,
  MAX_SOCKET_PATH_BYTES,
  SocketDirError,
  socketDir,
  socketPath,
} from '../../../src/attach/socket-dir.js';

describe('socket directory', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'agent-tty-socket-dir-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('is AGENT_TTY_SOCKET_DIR, else agent-tty-<uid> in the temporary directory', () => {
    assert.equal(socketDir({ AGENT_TTY_SOCKET_DIR: '/x/y' }), '/x/y');
    assert.equal(socketDir({}), join(tmpdir(), `agent-tty-${process.getuid?.()}`));
    assert.equal(socketPath('/x/y', 42), '/x/y/42.sock');
  });

  it('is created 0700 whatever the umask, with its missing parents', () => {
    const dir = join(root, 'new', 'sockets');
    const umask = process.umask(0);
    try {
      ensureSocketDir(dir);
    } finally {
      process.umask(umask);
    }
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(join(root, 'new')).mode & 0o777, 0o700);
  });

  it('refuses a directory too long for its sockets, before creating anything', () => {
    const parent = join(root, 'long');
    // One byte under the limit with the longest socket name is taken; one more is refused.
    const fits = MAX_SOCKET_PATH_BYTES - Buffer.byteLength(`${parent}//4194304.sock`);
    const ok = join(parent, 'd'.repeat(fits));
    ensureSocketDir(ok);
    const tooLong = join(parent, 'd'.repeat(fits + 1));
    for (const check of [ensureSocketDir, checkSocketDir]) {
      assert.throws(
        () => check(tooLong),
        (err: Error) => {
          assert.ok(err instanceof SocketDirError);
          assert.match(
            err.message,
            /is too long for a socket path \(\d+ bytes with a socket's name/,
          );
          return true;
        },
      );
    }
    assert.equal(existsSync(tooLong), false, 'nothing created');
  });

  it('refuses a relative directory, before creating anything', () => {
    const cwd = process.cwd();
    process.chdir(root);
    try {
      for (const relative of ['sockets', './sockets', '../sockets', 'a/b']) {
        for (const check of [ensureSocketDir, checkSocketDir]) {
          assert.throws(
            () => check(relative),
            (err: Error) =>
              err instanceof SocketDirError &&
              err.message.includes(`${relative} is a relative path`) &&
              err.message.includes('to an absolute path'),
          );
        }
      }
      assert.equal(existsSync(join(root, 'sockets')), false, 'nothing created');
      assert.equal(existsSync(join(root, 'a')), false, 'nothing created');
    } finally {
      process.chdir(cwd);
    }
  });

  it('refuses a planted symlink, even to a private directory of the user', () => {
    const real = join(root, 'real');
    mkdirSync(real, { mode: 0o700 });
    const link = join(root, 'link');
    symlinkSync(real, link);
    assert.throws(
      () => ensureSocketDir(link),
      (err: Error) => {
        assert.ok(err instanceof SocketDirError);
        assert.match(err.message, /is a symbolic link, which agent-tty never follows/);
        return true;
      },
    );
  });

  it('refuses a directory others can enter or write', () => {
    for (const mode of [0o777, 0o755, 0o710, 0o701, 0o1777]) {
      const dir = join(root, `open-${mode.toString(8)}`);
      mkdirSync(dir);
      chmodSync(dir, mode);
      assert.throws(
        () => ensureSocketDir(dir),
        /open to other users; it must be 0700/,
        mode.toString(8),
      );
    }
  });

  it('refuses a directory of another user', {
    skip: process.getuid?.() !== 0 && 'needs root to give a directory away',
  }, () => {
    const dir = join(root, 'theirs');
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, 65534, 65534);
    assert.throws(() => checkSocketDir(dir), /belongs to user 65534, not to you/);
  });

  it('refuses a file in its place', () => {
    const file = join(root, 'file');
    writeFileSync(file, '');
    assert.throws(() => ensureSocketDir(file), /is not a directory/);
  });

  it('lists only sockets named <pid>.sock', async () => {
    const dir = join(root, 'listing');
    ensureSocketDir(dir);
    writeFileSync(join(dir, '123.sock'), 'not a socket');
    writeFileSync(join(dir, 'notes.txt'), '');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, '456.sock'), resolve));
    try {
      assert.deepEqual(listSockets(dir), [{ pid: 456, path: join(dir, '456.sock') }]);
    } finally {
      server.close();
    }
    assert.deepEqual(listSockets(join(root, 'missing')), []);
  });
});
