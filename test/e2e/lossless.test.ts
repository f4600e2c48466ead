/**
 * Nothing printed is lost: when a snapshot first reports `exited`, it already shows the
 * program's last output. Fast-exiting programs are where node-pty on Linux loses the tail of the
 * output (libuv before 1.52). npm test runs each shape 4 times side by side, and the one-shot
 * runs while the server is busy reading big screens; the heavy layer (scripts/run-tests.mjs
 * heavy, which .ci/run runs after npm test) runs each shape 200 times, the one-shot runs 7 times
 * beside two busy loops, and the runs on a machine whose every core is busy. What keeps the tail
 * however late the reads come is test/unit/pty/output-barrier.test.ts > 'OutputBarrier exit
 * drain' ('keeps waiting through a busy event loop while the last output is still being read',
 * 'counts quiet in turns of the loop: late ticks with nothing read count once each').
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { HEAVY, heavyOnly, trials } from '../helpers/layers.js';
import { python } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';
import { type Snapshot, screenText } from '../helpers/tool-calls.js';

/** Runs of each shape: one round of PARALLEL in npm test. */
const RUNS = trials(200, 4);

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

  // Loads every core on purpose: in the heavy layer, which runs its files one at a time.
  it('loses nothing on a machine whose CPUs are busy', { skip: heavyOnly }, async () => {
    // Busy loops on every core slow the server's reads past node-pty's 200 ms grace after it
    // reaps a program: the drain must not depend on being quick.
    const stopBurners = startBusyLoops(6);
    try {
      const { lost, failures } = await runMany(
        h,
        'seq 1 50000',
        (s) => screenText(s).split('\n').at(-1) === '50000',
        60,
      );
      assert.equal(lost, 0, failures.join('\n---\n'));
    } finally {
      stopBurners();
    }
  });
});

/** `count` busy loops (`node -e 'for (;;) {}'`); returns the function that ends them. */
function startBusyLoops(count: number): () => void {
  const loops: ChildProcess[] = Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  return () => {
    for (const loop of loops) loop.kill('SIGKILL');
  };
}

describe('nothing printed is lost while the server is busy', { timeout: 300_000 }, () => {
  // Two busy loops, and an agent reading a large screen with its scrollback again and again:
  // each such read keeps the server's event loop busy for tens to hundreds of ms, and the
  // terminal hands over its output about 4 KiB per turn of that loop, so the end of a program's
  // output (up to 20 KiB the terminal holds when it exits) is read long after the exit. Each
  // program fills the terminal's buffer and exits at once; RUNS of them run together. The busy
  // loops, which load the machine on purpose, run in the heavy layer only.
  const RUNS = trials(7, 3);
  const BUSY_LOOPS = HEAVY ? 2 : 0;
  const PROGRAMS = [
    { command: 'exec seq 1 8000', count: 8_000 },
    {
      command: `exec bash -c 'for ((i = 1; i <= 5000; i++)); do printf "%d\\n" "$i"; done'`,
      count: 5_000,
    },
    {
      command: `exec ${python()} -c 'import sys; sys.stdout.write("".join(f"{i}\\n" for i in range(1, 8001)))'`,
      count: 8_000,
    },
  ];
  let h: Harness;
  let stopLoops: (() => void) | undefined;
  let wide: string;
  before(async () => {
    h = await startServer();
    // A 500x200 screen over 2000 lines of scrollback, every row full of coloured text.
    const fill = `awk 'BEGIN { for (i = 0; i < 2400; i++) { printf "\\033[3%dm", i % 8; for (j = 0; j < 83; j++) printf "%05d-", i; printf "\\033[0m\\n" } }'`;
    const reply = await h.call('terminal_start', {
      command: fill,
      shell: '/bin/sh',
      login: false,
      cols: 500,
      rows: 200,
      waitForExit: true,
    });
    wide = reply.data.sessionId as string;
    stopLoops = startBusyLoops(BUSY_LOOPS);
  });
  after(async () => {
    stopLoops?.();
    await h?.close();
  });

  it(`shows every line of ${RUNS} one-shot runs that end while big snapshots are read`, async () => {
    let reading = true;
    const reader = async () => {
      while (reading) {
        await h.call('terminal_snapshot', { sessionId: wide, scrollbackLines: 2000, settleMs: 0 });
      }
    };
    const readers = [reader(), reader()];
    const runs = Array.from({ length: RUNS }, async (_, k) => {
      const program = PROGRAMS[k % PROGRAMS.length] as (typeof PROGRAMS)[number];
      const reply = await h.call('terminal_start', {
        command: program.command,
        shell: '/bin/sh',
        login: false,
        cols: 80,
        rows: 24,
        waitForExit: true,
        stopOnInput: false,
        timeoutMs: 240_000,
        autoClose: true,
      });
      const snap = reply.data.snapshot as Snapshot;
      const rows = screenText(snap).split('\n');
      // Lines 1..historyTotal scrolled off; the screen shows the rest.
      const lines = snap.historyTotal + rows.length;
      const whole = rows.at(-1) === String(program.count) && lines === program.count;
      return snap.status === 'exited' && whole
        ? undefined
        : `${program.command}: ${snap.status}, ${lines} lines, the last "${rows.at(-1)}"`;
    });
    // The readers stop however the runs end, so a failed run leaves no call behind.
    const ended = await Promise.allSettled(runs);
    reading = false;
    await Promise.all(readers);
    const lost = ended.map((r) => (r.status === 'fulfilled' ? r.value : String(r.reason)));
    const failed = lost.filter((r) => r !== undefined);
    assert.deepEqual(failed, [], `${failed.length} of ${RUNS} runs lost the end of their output`);
  });
});
