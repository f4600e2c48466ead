/**
 * The PTY's input path against real programs, without MCP (spec/guarantees.md, "Input never reaches
 * another program"): input queued for a program that does not read is never written to a
 * descriptor after its terminal is gone, even when the number is reused at once; a full terminal
 * costs no CPU; the queue and the probe replies are bounded.
 */
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { PtyHandle } from '../../src/pty/pty-handle.js';
import { spawnPty } from '../../src/pty/spawn.js';
import { LIMITS } from '../../src/shared/config.js';
import { sleep } from '../helpers/wait.js';

const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color' };

function start(command: string, onData: (chunk: Uint8Array) => void = () => {}): PtyHandle {
  return spawnPty(
    { file: '/bin/sh', args: ['-c', command], cwd: '/', env: ENV, cols: 80, rows: 24 },
    { onData, onExit: () => {} },
  );
}

function kill(pty: PtyHandle): void {
  try {
    process.kill(-pty.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

describe('pty input', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-tty-pty-input-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('never writes queued input to a descriptor reused after dispose', async () => {
    const landed: string[] = [];
    for (let trial = 0; trial < 12; trial++) {
      const pty = start('stty raw -echo; exec sleep 1000');
      await sleep(30);
      pty.write(Buffer.alloc(1024 * 1024, 'Q'));
      // Let the queue back up and any retries run.
      await sleep(10 + (trial % 4) * 7);
      pty.dispose();
      // The lowest free numbers are the ones the terminal just released.
      const victims = [0, 1, 2].map((i) => join(dir, `victim-${trial}-${i}`));
      const fds = victims.map((path) => openSync(path, 'w'));
      await sleep(60);
      for (const fd of fds) closeSync(fd);
      kill(pty);
      for (const path of victims) {
        const text = readFileSync(path, 'utf8');
        if (text.length > 0) landed.push(`trial ${trial}: ${text.length} bytes in ${path}`);
      }
    }
    assert.deepEqual(landed, [], 'input of a disposed terminal landed in files opened after it');
  });

  it('costs no CPU while a program does not read its input', async () => {
    const pty = start('stty raw -echo; exec sleep 1000');
    try {
      await sleep(30);
      pty.write(Buffer.alloc(256 * 1024, 'x'));
      await sleep(50);
      const before = process.cpuUsage();
      const started = performance.now();
      await sleep(600);
      const used = process.cpuUsage(before);
      const share = (used.user + used.system) / 1000 / (performance.now() - started);
      assert.ok(share < 0.15, `CPU share while the terminal is full: ${(share * 100).toFixed(0)}%`);
    } finally {
      pty.dispose();
      kill(pty);
    }
  });

  it('bounds queued input and probe replies, and delivers the input once the program reads', async () => {
    // Reads nothing for 300 ms, then reads 200 000 bytes.
    const pty = start('stty raw -echo; sleep 0.3; head -c 200000 >/dev/null; exec sleep 1000');
    try {
      await sleep(30);
      const payload = Buffer.alloc(200_000);
      for (let i = 0; i < payload.length; i++) payload[i] = 0x61 + (i % 26);
      pty.write(payload);
      assert.ok(pty.pendingInputBytes > 100_000, `queued: ${pty.pendingInputBytes}`);
      assert.equal(pty.hasInputRoom(LIMITS.maxPendingInputBytes), false);
      assert.equal(pty.hasInputRoom(1024), true);
      let accepted = 0;
      for (let i = 0; i < 20_000; i++) if (pty.reply(Buffer.from('\x1b[1;1R'))) accepted++;
      const replyBytes = accepted * 6;
      assert.ok(
        replyBytes <= LIMITS.maxPendingReplyBytes,
        `${replyBytes} reply bytes queued beyond the ${LIMITS.maxPendingReplyBytes}-byte bound`,
      );
      assert.ok(accepted > 1000, `replies accepted: ${accepted}`);
      const deadline = Date.now() + 5000;
      while (pty.pendingInputBytes > 0 && Date.now() < deadline) await sleep(20);
      assert.equal(pty.pendingInputBytes, 0, 'the program read everything once it read');
    } finally {
      pty.dispose();
      kill(pty);
    }
  });
});
