import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PeerProof } from '../../../src/attach/peer.js';
import { checkPeer, type ServerTerminal, ttyEntry } from '../../../src/attach/peer-check.js';
import { tempSocketDir } from '../../helpers/attach-socket.js';

const linuxOnly = process.platform === 'linux' ? false : '/proc is Linux';

/** Opens `path` and holds it; prints its pid and the descriptor. */
const HOLDER = `const fs = require('node:fs');
const fd = fs.openSync(process.argv[1], 'r');
process.stdout.write(process.pid + ' ' + fd + '\\n');
setInterval(() => {}, 1000);`;

interface Holder {
  readonly pid: number;
  readonly fd: number;
  readonly child: ChildProcess;
}

/**
 * A process holding `path` open: a child of this process, or (`apart`) one in a session of its
 * own whose parent has exited, as a person's `agent-tty attach` in another terminal is.
 */
async function holdOpen(path: string, apart: boolean): Promise<Holder> {
  const child = apart
    ? spawn('sh', ['-c', 'setsid "$0" -e "$1" "$2" &', process.execPath, HOLDER, path], {
        stdio: ['ignore', 'pipe', 'inherit'],
      })
    : spawn(process.execPath, ['-e', HOLDER, path], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(text.trim());
    });
    child.on('error', reject);
  });
  const [pid = 0, fd = 0] = line.split(' ').map(Number);
  return { pid, fd, child };
}

function release(holder: Holder): void {
  try {
    process.kill(holder.pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
  holder.child.stdout?.destroy();
}

describe('checkPeer', { timeout: 60_000 }, () => {
  const { dir, remove } = tempSocketDir();
  after(remove);
  const none = { dir, terminals: (): ServerTerminal[] => [] };

  it('lets every request through where peers are not checked', () => {
    assert.equal(checkPeer({ type: 'list' }, undefined, none), undefined);
    assert.equal(
      checkPeer(
        { type: 'attach', sessionId: 't1', readOnly: false, cols: 80, rows: 24 },
        undefined,
        none,
      ),
      undefined,
    );
  });

  it('refuses a first request that does not show its process', { skip: linuxOnly }, () => {
    const proof = PeerProof.create(dir);
    try {
      assert.equal(checkPeer({ type: 'input', data: 'x' }, proof, none), undefined);
      assert.match(
        checkPeer({ type: 'list' }, proof, none) ?? '',
        /^refused: this connection did not show which process it comes from/,
      );
      assert.match(
        checkPeer({ type: 'list', pid: process.pid, proofFd: 0 }, proof, none) ?? '',
        new RegExp(`did not show that it comes from process ${process.pid} `),
        "the server's own pid shows nothing",
      );
      // pid 1 does not hold the proof file.
      assert.match(
        checkPeer({ type: 'list', pid: 1, proofFd: 3 }, proof, none) ?? '',
        /did not show that it comes from process 1 \(that process does not hold the proof file at descriptor 3\)/,
      );
    } finally {
      proof.close();
    }
  });

  it('refuses a process the server started, and one in a session of its terminals', {
    skip: linuxOnly,
  }, async () => {
    const proof = PeerProof.create(dir);
    const child = await holdOpen(proof.path, false);
    const apart = await holdOpen(proof.path, true);
    try {
      assert.equal(
        checkPeer({ type: 'list', pid: child.pid, proofFd: child.fd }, proof, none),
        `refused: process ${child.pid} runs in a session of this agent-tty server; agent-tty attach is for a person at their own terminal, not for programs the agent runs`,
      );
      // `apart` leads a session of its own; as a terminal's session, it is inside that terminal.
      const terminals = () => [{ sid: apart.pid, ttyPath: '', sessionId: 't7' }];
      assert.match(
        checkPeer({ type: 'list', pid: apart.pid, proofFd: apart.fd }, proof, { dir, terminals }) ??
          '',
        new RegExp(`^refused: process ${apart.pid} runs in session t7 of this agent-tty server;`),
      );
      assert.equal(
        checkPeer({ type: 'list', pid: apart.pid, proofFd: apart.fd }, proof, none),
        undefined,
        'a process in a session of its own, not started by a server, may attach',
      );
    } finally {
      release(child);
      release(apart);
      proof.close();
    }
  });
});

describe('ttyEntry', () => {
  it("maps a terminal's device number to its session, and nothing for no terminal", () => {
    assert.deepEqual(ttyEntry('/dev/null', 't2'), [[statSync('/dev/null').rdev, 't2']]);
    assert.deepEqual(ttyEntry('', 't2'), []);
    assert.deepEqual(ttyEntry(join('/nonexistent', 'pts', '9'), 't2'), []);
  });
});
