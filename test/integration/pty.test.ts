/**
 * The PTY layer against real programs, without MCP: output arrives complete before the exit,
 * exit codes and signals are reported, spawn failures throw SPAWN_FAILED, and terminateSession
 * ends a whole session, process groups and signal-ignoring children included.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import type { PtyExit } from '../../src/pty/pty-handle.js';
import { spawnPty } from '../../src/pty/spawn.js';
import { defaultTerminateDeps, terminateSession } from '../../src/pty/terminate.js';
import { TerminalError } from '../../src/shared/errors.js';
import { isAlive } from '../helpers/processes.js';
import { python } from '../helpers/programs.js';
import { sleep } from '../helpers/wait.js';

interface Run {
  output: string;
  exit: PtyExit;
}

function run(command: string, onStart?: (write: (s: string) => void) => void): Promise<Run> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const pty = spawnPty(
      {
        file: '/bin/sh',
        args: ['-c', command],
        cwd: process.cwd(),
        env: { ...(process.env as Record<string, string>), TERM: 'xterm-256color' },
        cols: 80,
        rows: 24,
      },
      {
        onData: (chunk) => chunks.push(Buffer.from(chunk)),
        onExit: (exit) => {
          pty.dispose();
          resolve({ output: Buffer.concat(chunks).toString('utf8'), exit });
        },
      },
    );
    onStart?.((s) => pty.write(Buffer.from(s)));
  });
}

describe('pty', () => {
  it('delivers all output before reporting the exit, without the drain marker', async () => {
    for (let i = 0; i < 20; i++) {
      const { output, exit } = await run('seq 1 20000');
      assert.ok(output.trimEnd().endsWith('\r\n20000'), `run ${i}: ${output.slice(-40)}`);
      assert.ok(!output.includes('\x1b]7799') && !output.includes('AGENTTTY'), 'no drain marker');
      assert.deepEqual(exit, { exitCode: 0, signal: null });
    }
  });

  it('reports exit codes and signals', async () => {
    assert.deepEqual((await run('exit 3')).exit, { exitCode: 3, signal: null });
    assert.deepEqual((await run('kill -TERM $$')).exit, { exitCode: null, signal: 'SIGTERM' });
  });

  it('writes input to the program', async () => {
    const { output } = await run('read line; echo "got:$line"', (write) => write('hello\r'));
    assert.match(output, /got:hello/);
  });

  it('refuses a missing working directory or program with SPAWN_FAILED', () => {
    const events = { onData: () => undefined, onExit: () => undefined };
    const base = { args: [], env: { PATH: '/usr/bin:/bin' }, cols: 80, rows: 24 };
    for (const options of [
      { ...base, file: '/bin/sh', cwd: '/no/such/dir' },
      { ...base, file: '/bin/no-such-shell', cwd: '/' },
      { ...base, file: 'no-such-program-anywhere', cwd: '/' },
    ]) {
      assert.throws(
        () => spawnPty(options, events),
        (err: unknown) => err instanceof TerminalError && err.code === 'SPAWN_FAILED',
      );
    }
  });

  it('refuses, on Linux, an argument or environment entry too long to exec, and runs one at the limit', {
    skip: process.platform !== 'linux' && 'a Linux limit (MAX_ARG_STRLEN)',
  }, async () => {
    // 32 pages less the terminating NUL, the page size as the system reports it.
    const max = 32 * Number(execFileSync('getconf', ['PAGESIZE'], { encoding: 'utf8' })) - 1;
    const at = ': ' + 'x'.repeat(max - 2);
    assert.equal(Buffer.byteLength(at), max);
    assert.deepEqual((await run(at)).exit, { exitCode: 0, signal: null }, 'at the limit it runs');
    const events = { onData: () => undefined, onExit: () => undefined };
    const base = { file: '/bin/sh', cwd: '/', cols: 80, rows: 24 };
    const over = [
      { ...base, args: ['-c', `${at}x`], env: { PATH: '/usr/bin:/bin' } },
      { ...base, args: ['-c', 'true'], env: { PATH: '/usr/bin:/bin', BIG: 'x'.repeat(max) } },
    ];
    for (const [i, options] of over.entries()) {
      assert.throws(
        () => spawnPty(options, events),
        (err: unknown) =>
          err instanceof TerminalError &&
          err.code === 'SPAWN_FAILED' &&
          err.message.includes(`at most ${max}`) &&
          err.message.includes(i === 0 ? 'the command is' : 'the environment variable BIG is') &&
          err.message.includes('(E2BIG)'),
      );
    }
  });

  it('terminateSession ends every process group of the session', {
    skip: process.platform !== 'linux' && 'reads /proc',
  }, async () => {
    let output = '';
    const pty = spawnPty(
      {
        file: '/bin/bash',
        args: ['--norc', '-i'],
        cwd: process.cwd(),
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color', PS1: '$ ' },
        cols: 100,
        rows: 24,
      },
      { onData: (c) => (output += Buffer.from(c).toString()), onExit: () => undefined },
    );
    // B prints its pid only once it ignores the signals: printed from outside, with $!, it
    // could be read before the trap ran, and SIGHUP would then end B.
    pty.write(
      Buffer.from(
        `sleep 900 & echo A=$!\r(trap '' HUP TERM INT; echo B=$BASHPID; exec sleep 901) &\r`,
      ),
    );
    const deadline = Date.now() + 5000;
    while (!/B=\d+/.test(output) && Date.now() < deadline) await sleep(20);
    const a = Number(/A=(\d+)/.exec(output)?.[1]);
    const b = Number(/B=(\d+)/.exec(output)?.[1]);
    assert.ok(isAlive(a) && isAlive(b));
    const report = await terminateSession(
      pty.pid,
      pty.ttyPath,
      { hangupGraceMs: 100, termGraceMs: 100, killGraceMs: 1000 },
      defaultTerminateDeps,
    );
    pty.dispose();
    assert.deepEqual(report.survivors, []);
    assert.deepEqual(
      report.signals,
      ['SIGHUP', 'SIGTERM', 'SIGKILL'],
      'the ignoring child needed SIGKILL',
    );
    for (const pid of [pty.pid, a, b]) assert.equal(isAlive(pid), false, `pid ${pid} is gone`);
  });

  it('terminateSession returns without escalating when hangup suffices', async () => {
    const pty = spawnPty(
      {
        file: '/bin/sh',
        args: ['-c', 'sleep 900'],
        cwd: '/',
        env: { PATH: process.env.PATH ?? '' },
        cols: 80,
        rows: 24,
      },
      { onData: () => undefined, onExit: () => undefined },
    );
    await sleep(50);
    const report = await terminateSession(pty.pid, pty.ttyPath, {
      hangupGraceMs: 2000,
      termGraceMs: 2000,
      killGraceMs: 1000,
    });
    pty.dispose();
    assert.deepEqual(report.signals, ['SIGHUP']);
    assert.equal(isAlive(pty.pid), false);
  });

  it('reports the exit in bounded time while a process left behind keeps printing', {
    skip: process.platform !== 'linux' && 'reads /proc',
  }, async () => {
    // A background `yes` that ignores the hangup outlives the shell and keeps the terminal full:
    // the drain stops waiting once it has read 1 MiB since the exit (or at its cap).
    let output = 0;
    let exitedAt = 0;
    const started = performance.now();
    const pty = spawnPty(
      {
        file: '/bin/sh',
        args: ['-c', `(trap '' HUP; exec yes) & echo started; exit 7`],
        cwd: process.cwd(),
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color' },
        cols: 80,
        rows: 24,
      },
      {
        onData: (chunk) => {
          output += chunk.length;
        },
        onExit: () => {
          exitedAt = performance.now();
        },
      },
    );
    try {
      while (exitedAt === 0 && performance.now() - started < 15_000) await sleep(20);
      assert.ok(exitedAt > 0, `the exit was reported (${output} bytes read)`);
      assert.ok(exitedAt - started < 6000, `within the 5 s cap: ${exitedAt - started} ms`);
    } finally {
      await terminateSession(pty.pid, pty.ttyPath, {
        hangupGraceMs: 100,
        termGraceMs: 100,
        killGraceMs: 1000,
      });
      pty.dispose();
    }
  });

  it('delivers the last output and reports the exit when the output is stopped', {
    timeout: 20_000,
  }, async () => {
    // The program stops the terminal's output (as XOFF would) and exits: the drain marker can
    // never come back, so the drain ends after its quiet turns; what came before is delivered.
    const started = performance.now();
    const { output, exit } = await run(
      `exec ${python()} -c 'import sys, termios; sys.stdout.write("last words\\n"); sys.stdout.flush(); termios.tcflow(1, termios.TCOOFF)'`,
    );
    const elapsed = performance.now() - started;
    assert.ok(output.includes('last words'), JSON.stringify(output));
    assert.deepEqual(exit, { exitCode: 0, signal: null });
    // 20 quiet turns of at least 20 ms, well before the 5 s cap.
    assert.ok(elapsed >= 400 && elapsed < 4000, `after the quiet turns: ${elapsed} ms`);
  });
});
