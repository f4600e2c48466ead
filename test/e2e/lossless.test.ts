/**
 * Nothing printed is lost: when a snapshot first reports `exited`, it already shows the
 * program's last output. Fast-exiting programs are where node-pty on Linux loses the tail of the
 * output (libuv before 1.52); 200 runs of each shape must lose nothing.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { python } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';
import { type Snapshot, screenText } from '../helpers/tool-calls.js';

const RUNS = 200;

const PARALLEL = 4;

async function runMany(
  h: Harness,
  command: string,
  check: (s: Snapshot) => boolean,
  runs = RUNS,
): Promise<{ lost: number; failures: string[] }> {
  let lost = 0;
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < runs) {
      next++;
      const reply = await h.call('terminal_start', {
        command,
        shell: '/bin/sh',
        login: false,
        cols: 80,
        rows: 24,
        settleMs: 250,
        settleTimeoutMs: 30_000,
      });
      let snap = reply.data.snapshot;
      // Poll until the first snapshot that reports the exit: that one must show everything.
      while (snap?.status === 'running' && reply.data.sessionId) {
        snap = (
          await h.call('terminal_snapshot', { sessionId: reply.data.sessionId, settleMs: 20 })
        ).data.snapshot;
      }
      if (snap?.status !== 'exited' || !check(snap)) {
        lost++;
        if (failures.length < 3) failures.push(JSON.stringify(snap?.screen.slice(-3)));
      }
      if (reply.data.sessionId) await h.call('terminal_close', { sessionId: reply.data.sessionId });
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return { lost, failures };
}

describe('nothing printed is lost', { timeout: 600_000 }, () => {
  let h: Harness;
  before(async () => {
    h = await startServer();
  });
  after(() => h.close());

  it(`shows the last line of seq 1 50000 in ${RUNS} of ${RUNS} runs`, async () => {
    const { lost, failures } = await runMany(
      h,
      'seq 1 50000',
      (s) => screenText(s).split('\n').at(-1) === '50000',
    );
    assert.equal(lost, 0, failures.join('\n---\n'));
  });

  it(`shows the end of a 200 KB line written just before exit in ${RUNS} of ${RUNS} runs`, async () => {
    // 200 000 x then an end marker, in one write, then exit at once.
    const { lost, failures } = await runMany(
      h,
      `${python()} -c 'import sys; sys.stdout.write("x" * 199997 + "END")'`,
      (s) => /xEND$/.test(s.screen.join('')),
    );
    assert.equal(lost, 0, failures.join('\n---\n'));
  });

  it('loses nothing on a machine whose CPUs are busy', async () => {
    // Busy loops on every core slow the server's reads past node-pty's 200 ms grace after it
    // reaps a program: the drain must not depend on being quick.
    const burners: ChildProcess[] = Array.from({ length: 6 }, () =>
      spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
    );
    try {
      const { lost, failures } = await runMany(
        h,
        'seq 1 50000',
        (s) => screenText(s).split('\n').at(-1) === '50000',
        60,
      );
      assert.equal(lost, 0, failures.join('\n---\n'));
    } finally {
      for (const burner of burners) burner.kill('SIGKILL');
    }
  });
});
