/**
 * The PtyHandle over a real node-pty terminal: output then the exit, exit codes and signals,
 * the output barrier, flow control (and no pause left behind once the program is gone), resize,
 * and what a handle does once the program exited or the handle was disposed.
 */
import assert from 'node:assert/strict';
import { closeSync } from 'node:fs';
import { describe, it } from 'node:test';
import pty from 'node-pty';
import { NodePtyHandle, openSlave } from '../../../src/pty/node-pty-handle.js';
import type { PtyExit } from '../../../src/pty/pty-handle.js';
import { sleep, waitUntil } from '../../helpers/wait.js';

interface Started {
  readonly handle: NodePtyHandle;
  readonly events: string[];
  output(): string;
  exit(): PtyExit | undefined;
}

function start(script: string, options = {}): Started {
  const events: string[] = [];
  let output = '';
  let exit: PtyExit | undefined;
  const native = pty.spawn('/bin/sh', ['-c', script], {
    name: 'xterm-256color',
    cols: 80,
    rows: 24,
    cwd: '/',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    encoding: null,
  });
  const handle = new NodePtyHandle(
    native,
    {
      onData: (chunk) => {
        events.push('data');
        output += Buffer.from(chunk).toString();
      },
      onExit: (e) => {
        events.push('exit');
        exit = e;
      },
    },
    options,
  );
  return { handle, events, output: () => output, exit: () => exit };
}

function end({ handle }: Started): void {
  try {
    process.kill(handle.pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
  handle.dispose();
}

describe('NodePtyHandle', { skip: process.platform === 'win32' }, () => {
  it('delivers the output, then reports the exit code, and no output after it', async () => {
    const t = start('printf hello; exit 3');
    try {
      await waitUntil(() => t.exit() !== undefined, 'the exit');
      assert.equal(t.output(), 'hello');
      assert.deepEqual(t.exit(), { exitCode: 3, signal: null });
      assert.equal(t.events.at(-1), 'exit');
      assert.equal(t.events.indexOf('exit'), t.events.length - 1);
    } finally {
      end(t);
    }
  });

  it('reports a signal by name', async () => {
    const t = start('echo ready; sleep 30');
    try {
      await waitUntil(() => t.output().includes('ready'), 'the program runs');
      process.kill(t.handle.pid, 'SIGKILL');
      await waitUntil(() => t.exit() !== undefined, 'the exit');
      assert.deepEqual(t.exit(), { exitCode: null, signal: 'SIGKILL' });
    } finally {
      end(t);
    }
  });

  it('names its terminal and passes input to the program', async () => {
    const t = start('read x; echo "got $x"; sleep 30');
    try {
      assert.match(t.handle.ttyPath, /^\/dev\/(pts\/\d+|ttys\d+)$/);
      t.handle.write(Buffer.from('abc\r'));
      await waitUntil(() => t.output().includes('got abc'), 'the echo');
      assert.equal(t.handle.pendingInputBytes, 0);
      assert.equal(t.handle.hasInputRoom(1), true);
    } finally {
      end(t);
    }
  });

  it('resolves a barrier once the output before it is delivered', async () => {
    const t = start('echo first; sleep 30');
    try {
      await waitUntil(() => t.output().includes('first'), 'the output');
      assert.equal(await t.handle.barrier(2000), true);
    } finally {
      end(t);
    }
  });

  it('resizes the terminal', async () => {
    const t = start('read x; stty size; sleep 30');
    try {
      t.handle.resize(100, 30);
      t.handle.write(Buffer.from('\r'));
      await waitUntil(() => t.output().includes('30 100'), 'stty size');
    } finally {
      end(t);
    }
  });

  it('holds output back while paused, and delivers it on resume', async () => {
    const t = start('read x; echo later; sleep 30');
    try {
      await sleep(100);
      t.handle.pause();
      t.handle.write(Buffer.from('go\r'));
      await sleep(300);
      assert.doesNotMatch(t.output(), /later/);
      t.handle.resume();
      await waitUntil(() => t.output().includes('later'), 'the output after resume');
    } finally {
      end(t);
    }
  });

  it('does not stay paused once the program is gone: its last output and exit arrive', async () => {
    const t = start('read x; echo last; exit 4');
    try {
      await sleep(100);
      t.handle.pause();
      t.handle.write(Buffer.from('go\r'));
      await waitUntil(() => t.exit() !== undefined, 'the exit while paused', 5000);
      assert.match(t.output(), /last/);
      assert.deepEqual(t.exit(), { exitCode: 4, signal: null });
    } finally {
      end(t);
    }
  });

  it('once the program exited: input is discarded, replies dropped, barriers false', async () => {
    const t = start('exit 0');
    try {
      await waitUntil(() => t.exit() !== undefined, 'the exit');
      t.handle.write(Buffer.from('late\r'));
      assert.equal(t.handle.pendingInputBytes, 0);
      assert.equal(t.handle.reply(Buffer.from('\x1b[0n')), false);
      assert.equal(await t.handle.barrier(100), false);
      assert.doesNotThrow(() => t.handle.resize(90, 20));
    } finally {
      end(t);
    }
  });

  it('once disposed: no exit is reported, and dispose may be called again', async () => {
    const t = start('echo ready; sleep 30');
    try {
      await waitUntil(() => t.output().includes('ready'), 'the program runs');
      t.handle.dispose();
      t.handle.dispose();
      assert.equal(t.handle.reply(Buffer.from('x')), false);
      assert.equal(await t.handle.barrier(100), false);
      // node-pty closed the terminal: the program may have had its hangup and be gone already.
      end(t);
      await sleep(200);
      assert.equal(t.exit(), undefined);
    } finally {
      end(t);
    }
  });
});

describe('openSlave', { skip: process.platform === 'win32' }, () => {
  it("opens a terminal's slave side; undefined for no path or one that cannot be opened", () => {
    const t = start('sleep 30');
    try {
      const fd = openSlave(t.handle.ttyPath);
      assert.equal(typeof fd, 'number');
      closeSync(fd as number);
      assert.equal(openSlave(''), undefined);
      assert.equal(openSlave('/dev/pts/does-not-exist'), undefined);
    } finally {
      end(t);
    }
  });
});
