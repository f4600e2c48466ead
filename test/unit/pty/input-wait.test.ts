/**
 * The input-wait probe against real programs on Linux: REPLs at a prompt, commands at work, event
 * loops, input marks, and the rest of the session (othersIdle). How a thread's wait and the
 * group's verdict are read is tested in thread-wait.test.ts and group-wait.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createInputWaitProbe } from '../../../src/pty/input-wait.js';
import { othersIdle } from '../../../src/pty/others-idle.js';
import { scanProcSync } from '../../../src/pty/processes.js';
import { spawnPty } from '../../../src/pty/spawn.js';
import { isAsleepInSession } from '../../helpers/processes.js';
import { python } from '../../helpers/programs.js';
import { sleep } from '../../helpers/wait.js';

describe('input-wait probe on real programs', {
  skip: process.platform !== 'linux' && 'Linux only',
}, () => {
  async function probeOf(file: string, args: string[]) {
    let output = '';
    const pty = spawnPty(
      {
        file,
        args,
        cwd: '/',
        env: { ...(process.env as Record<string, string>), TERM: 'xterm-256color' },
        cols: 80,
        rows: 24,
      },
      {
        onData: (chunk) => {
          output += Buffer.from(chunk).toString();
        },
        onExit: () => undefined,
      },
    );
    const probe = createInputWaitProbe(pty.pid, pty.ttyPath);
    assert.ok(probe);
    return { pty, probe, output: () => output };
  }

  async function eventually(check: () => boolean, ms = 3000) {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (check()) return true;
      await sleep(20);
    }
    return false;
  }

  it('sees a REPL waiting, and a sleeping command not waiting', async () => {
    const repl = await probeOf(python(), ['-q']);
    assert.ok(await eventually(() => repl.probe.isWaiting()), 'python waits at its prompt');
    const busy = await probeOf('/bin/sh', ['-c', 'sleep 5']);
    assert.ok(await eventually(() => isAsleepInSession(busy.pty.pid)), 'sleep sleeps');
    assert.equal(busy.probe.isWaiting(), false);
    for (const { pty } of [repl, busy]) {
      process.kill(pty.pid, 'SIGKILL');
      pty.dispose();
    }
  });

  it('does not count a wait from before the input was read', async () => {
    const { pty, probe } = await probeOf('/bin/sh', ['-c', 'read x; sleep 5']);
    assert.ok(await eventually(() => probe.isWaiting()));
    probe.markInput();
    assert.equal(probe.isWaiting(), false, 'not yet run since the input');
    pty.write(Buffer.from('go\r'));
    assert.ok(await eventually(() => isAsleepInSession(pty.pid)), 'sleep sleeps');
    assert.equal(probe.isWaiting(), false, 'now sleeping, not reading');
    process.kill(pty.pid, 'SIGKILL');
    pty.dispose();
  });

  it('counts a wait after input that arrived while the program was running', async () => {
    // Input written while the program runs is read without it ever being scheduled out; it then
    // blocks for more. It has slept since the input, though it was never scheduled in again.
    const program = [
      'import sys, time',
      'print("busy", flush=True)',
      'end = time.time() + 0.6',
      'while time.time() < end: pass',
      'sys.stdin.readline()',
      'sys.stdin.readline()',
    ].join('\n');
    const { pty, probe, output } = await probeOf(python(), ['-c', program]);
    try {
      assert.ok(await eventually(() => output().includes('busy')), 'python is at work');
      probe.markInput();
      pty.write(Buffer.from('first\r'));
      assert.ok(await eventually(() => probe.isWaiting()), 'waits for the second line');
    } finally {
      process.kill(pty.pid, 'SIGKILL');
      pty.dispose();
    }
  });

  it('tells an untimed read from a read with a timeout', async () => {
    const untimed = await probeOf('/bin/bash', ['--norc', '--noprofile', '-c', 'read x']);
    const timed = await probeOf('/bin/bash', ['--norc', '--noprofile', '-c', 'read -t 3 x']);
    assert.ok(
      await eventually(() => untimed.probe.inputWait()?.waitMs === Number.POSITIVE_INFINITY),
    );
    assert.ok(await eventually(() => (timed.probe.inputWait()?.waitMs ?? 0) > 2000));
    assert.ok((timed.probe.inputWait()?.waitMs as number) <= 3000);
    for (const { pty } of [untimed, timed]) {
      process.kill(pty.pid, 'SIGKILL');
      pty.dispose();
    }
  });

  it("reports the foreground group's CPU time; a thread at work means no wait", async () => {
    const program = [
      'import threading, time',
      'def spin():',
      '    end = time.time() + 30',
      '    while time.time() < end: pass',
      'threading.Thread(target=spin, daemon=True).start()',
      'print("spinning", flush=True)',
      'input()',
    ].join('\n');
    const idle = await probeOf(python(), ['-q']);
    const busy = await probeOf(python(), ['-c', program]);
    try {
      assert.ok(await eventually(() => idle.probe.isWaiting()));
      const before = idle.probe.inputWait()?.cpuMs ?? 0;
      await sleep(300);
      const after = idle.probe.inputWait()?.cpuMs ?? 0;
      assert.ok(after - before <= 10, `idle: ${before} → ${after}`);
      // The main thread reads the terminal, but a thread at work can print at any time.
      await sleep(1000);
      for (let i = 0; i < 20; i++) {
        assert.equal(busy.probe.isWaiting(), false, 'a thread at work');
        await sleep(20);
      }
    } finally {
      for (const { pty } of [idle, busy]) {
        process.kill(pty.pid, 'SIGKILL');
        pty.dispose();
      }
    }
  });

  it('tells event loops at work from event loops at a prompt', async () => {
    const node = process.execPath;
    const cases: [string, string, string[], boolean][] = [
      ['node, a timer', node, ['-e', 'setTimeout(() => {}, 30000); console.log("READY")'], false],
      [
        'node, a child',
        node,
        [
          '-e',
          "require('child_process').execFile('sleep', ['30'], () => {}); console.log('READY')",
        ],
        false,
      ],
      [
        'node, readline',
        node,
        [
          '-e',
          "require('readline').createInterface({input: process.stdin}).question('? ', () => {})",
        ],
        true,
      ],
      [
        'python asyncio, a sleep',
        python(),
        ['-c', 'import asyncio; print("READY", flush=True); asyncio.run(asyncio.sleep(30))'],
        false,
      ],
      [
        'python asyncio, a reader of the terminal',
        python(),
        [
          '-c',
          'import asyncio, sys\nasync def main():\n    f = asyncio.get_running_loop().create_future()\n    asyncio.get_running_loop().add_reader(0, lambda: None)\n    await f\nasyncio.run(main())',
        ],
        true,
      ],
      [
        '/dev/tty asked with stdin a pipe',
        '/bin/sh',
        [
          '-c',
          `echo x | ${python()} -c "import select; r = open('/dev/tty'); select.select([r], [], [])"`,
        ],
        true,
      ],
    ];
    const probes = await Promise.all(cases.map(([, file, args]) => probeOf(file, args)));
    try {
      for (const [i, [name, , , waits]] of cases.entries()) {
        const { probe, output } = probes[i] as Awaited<ReturnType<typeof probeOf>>;
        if (waits) {
          assert.ok(await eventually(() => probe.isWaiting(), 10_000), `${name}: waits`);
        } else {
          assert.ok(await eventually(() => output().includes('READY'), 10_000), `${name}: runs`);
          // Asleep in its loop by then: the probe has had every chance to call it a wait.
          await sleep(300);
          for (let n = 0; n < 10; n++) {
            assert.equal(probe.isWaiting(), false, `${name}: does not wait`);
            await sleep(50);
          }
        }
      }
    } finally {
      for (const { pty } of probes) {
        for (const { pid } of scanProcSync(pty.pid).procs) process.kill(pid, 'SIGKILL');
        pty.dispose();
      }
    }
  });

  it('othersIdle: a background job can print, a stopped one cannot, the shell of the job can', async () => {
    const shell = await probeOf('/bin/bash', ['--norc', '--noprofile', '-i']);
    const idle = () => othersIdle(shell.pty.pid);
    try {
      assert.ok(await eventually(() => shell.probe.isWaiting()), 'bash waits at its prompt');
      assert.equal(idle(), true, 'bash alone');
      shell.pty.write(Buffer.from('sleep 30 &\r'));
      assert.ok(await eventually(() => !idle()), 'a sleeping background job');
      shell.pty.write(Buffer.from('kill -STOP %1\r'));
      assert.ok(await eventually(idle), 'the job stopped');
      shell.pty.write(Buffer.from(`${python()} -q\r`));
      assert.ok(
        await eventually(() => shell.probe.isWaiting() && idle()),
        'bash waits for python, which reads',
      );
    } finally {
      for (const { pid } of scanProcSync(shell.pty.pid).procs) process.kill(pid, 'SIGKILL');
      shell.pty.dispose();
    }
  });
});
