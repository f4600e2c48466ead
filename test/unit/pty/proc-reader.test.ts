/**
 * /proc as the probe reads it, against the test process itself and a child it starts: threads,
 * syscall lines, memory, descriptors, fdinfo, named pipes and Unix-domain sockets.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROC_READER, readProcFile } from '../../../src/pty/proc-reader.js';
import { linuxOnly } from '../../helpers/processes.js';
import { waitUntil } from '../../helpers/wait.js';

/** A pid that is no process now (pid_max is at most 4194304). */
const GONE = 4_194_305;

describe('PROC_READER', { skip: linuxOnly }, () => {
  let dir: string;
  let child: ChildProcess;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'proc-reader-'));
    child = spawn('sleep', ['30'], { stdio: 'ignore' });
  });
  after(() => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the threads of a process, the main thread first among them', () => {
    const threads = PROC_READER.threads(process.pid);
    assert.ok(threads?.includes(process.pid), `${threads}`);
    assert.ok((threads?.length ?? 0) > 1, 'node runs worker threads');
    assert.equal(PROC_READER.threads(GONE), undefined);
  });

  it("reads a blocked thread's syscall line, and its stack through /proc/<pid>/mem", async () => {
    const pid = child.pid as number;
    let text: string | 'denied' | undefined;
    await waitUntil(() => {
      text = PROC_READER.syscall(pid, pid);
      return text !== undefined && text !== 'denied' && !text.startsWith('running');
    }, 'sleep blocks in a syscall');
    // "nr arg0 … arg5 sp pc": the stack pointer is the second to last field.
    const fields = (text as string).trim().split(' ');
    assert.equal(fields.length, 9, text);
    const sp = BigInt(fields[7] as string);
    assert.equal(PROC_READER.readMemory(pid, sp, 16)?.length, 16);
    assert.equal(PROC_READER.readMemory(pid, 0n, 16), undefined, 'an unmapped address');
    assert.equal(PROC_READER.readMemory(GONE, sp, 16), undefined);
    assert.equal(PROC_READER.syscall(GONE, GONE), undefined);
  });

  it('reads descriptors: their targets, fdinfo, and which are named pipes', () => {
    const file = join(dir, 'plain');
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const plainFd = openSync(file, 'w');
    const fifoFd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    try {
      assert.equal(PROC_READER.fdTarget(process.pid, plainFd), file);
      const all = PROC_READER.fdTargets(process.pid);
      assert.equal(all?.get(plainFd), file);
      assert.equal(all?.get(fifoFd), fifo);
      assert.match(PROC_READER.fdInfo(process.pid, fifoFd) ?? '', /^flags:\s*[0-7]*2$/m);
      assert.equal(PROC_READER.isFifo(process.pid, fifoFd), true);
      assert.equal(PROC_READER.isFifo(process.pid, plainFd), false);
    } finally {
      closeSync(plainFd);
      closeSync(fifoFd);
    }
    assert.equal(PROC_READER.fdTarget(process.pid, plainFd), undefined, 'closed');
    assert.equal(PROC_READER.fdInfo(process.pid, plainFd), undefined);
    assert.equal(PROC_READER.isFifo(process.pid, plainFd), false);
    assert.equal(PROC_READER.fdTargets(GONE), undefined);
  });

  it("lists the Unix-domain sockets of the process's network namespace", async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, 'sock'), resolve));
    try {
      const inodes = [...(PROC_READER.fdTargets(process.pid)?.values() ?? [])]
        .map((target) => /^socket:\[(\d+)\]$/.exec(target)?.[1])
        .filter((n) => n !== undefined)
        .map(Number);
      const unix = PROC_READER.unixSockets(process.pid);
      assert.ok(unix && unix.size > 0);
      assert.ok(
        inodes.some((inode) => unix.has(inode)),
        'the listening socket is among them',
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    assert.equal(PROC_READER.unixSockets(GONE), undefined);
  });
});

describe('readProcFile', { skip: linuxOnly }, () => {
  it('reads a /proc file, or undefined when there is none', () => {
    assert.match(readProcFile(`/proc/${process.pid}/status`) ?? '', /^Name:/);
    assert.equal(readProcFile(`/proc/${GONE}/status`), undefined);
  });
});
