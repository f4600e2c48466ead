/**
 * The early-stop rule decided from samples (pure), and the tracker that takes them from a
 * session, with a fake session: when a run of samples begins, what breaks it, how long it must
 * last, and how often the session's other processes are scanned.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CPU_SLACK_MS,
  cpuAllowedMs,
  INPUT_QUIET_MS,
  InputStopTracker,
  isStopDue,
  nextStopState,
  OTHERS_SCAN_MS,
  quietNeededMs,
  REFRESH_MS,
  type StopSample,
  type StopSource,
} from '../../../src/session/early-stop.js';

const WAITING: StopSample = {
  at: 0,
  waitingMs: Number.POSITIVE_INFINITY,
  cpuMs: 1000,
  parses: 5,
  busy: false,
  pendingInputBytes: 0,
  othersIdle: true,
};

/** Feeds samples (each over WAITING) in order; the state after the last. */
function run(...samples: Partial<StopSample>[]) {
  return samples.reduce(
    (state, s) => nextStopState(state, { ...WAITING, ...s }),
    undefined as ReturnType<typeof nextStopState>,
  );
}

describe('quietNeededMs', () => {
  it('is INPUT_QUIET_MS for a wait without a timeout or with one over REFRESH_MS', () => {
    assert.equal(INPUT_QUIET_MS, 300);
    assert.equal(quietNeededMs(Number.POSITIVE_INFINITY), INPUT_QUIET_MS);
    assert.equal(quietNeededMs(REFRESH_MS + 1), INPUT_QUIET_MS);
    assert.equal(quietNeededMs(7727), INPUT_QUIET_MS, "npm init's pending timer");
  });

  it('waits out a refresh loop: its timeout plus INPUT_QUIET_MS', () => {
    assert.equal(quietNeededMs(1500), 1500 + INPUT_QUIET_MS);
    assert.equal(quietNeededMs(REFRESH_MS), REFRESH_MS + INPUT_QUIET_MS);
  });
});

describe('nextStopState', () => {
  it('begins a run at the first sample that says stop, and keeps it while nothing changes', () => {
    assert.deepEqual(run({ at: 10 }, { at: 30 }, { at: 50 }), {
      since: 10,
      parses: 5,
      cpuMs: 1000,
      needMs: INPUT_QUIET_MS,
    });
  });

  it('starts over when output was parsed since the run began', () => {
    assert.equal(run({ at: 10 }, { at: 30, parses: 6 })?.since, 30);
  });

  const breaks: [string, Partial<StopSample>][] = [
    ['the program does not wait for input', { waitingMs: undefined }],
    ['output waits to be parsed, or a synchronized update runs', { busy: true }],
    ['input sent to it is not taken yet', { pendingInputBytes: 3 }],
    ['another process of the session could print', { othersIdle: false }],
  ];
  for (const [name, sample] of breaks) {
    it(`ends the run when ${name}`, () => {
      assert.equal(run({ at: 10 }, { at: 30, ...sample }), undefined);
      assert.equal(run({ at: 10 }, { at: 30, ...sample }, { at: 50 })?.since, 50);
    });
  }

  it('tolerates the CPU of an idle program (a timer, a tick), not that of a thread at work', () => {
    assert.equal(cpuAllowedMs(0), CPU_SLACK_MS);
    assert.equal(cpuAllowedMs(300), CPU_SLACK_MS + 30);
    const idle = run({ at: 0 }, { at: 100, cpuMs: 1010 }, { at: 300, cpuMs: 1020 });
    assert.equal(idle?.since, 0);
    const working = run({ at: 0 }, { at: 100, cpuMs: 1100 });
    assert.deepEqual([working?.since, working?.cpuMs], [100, 1100], 'the run starts over');
  });

  it('tolerates exactly the CPU allowed for the run so far, and starts over past it', () => {
    const allowed = cpuAllowedMs(100);
    assert.equal(run({ at: 0 }, { at: 100, cpuMs: 1000 + allowed })?.since, 0);
    assert.equal(run({ at: 0 }, { at: 100, cpuMs: 1000 + allowed + 1 })?.since, 100);
  });

  it('needs the longest refresh timeout seen during the run', () => {
    const state = run({ at: 0, waitingMs: 2000 }, { at: 20 });
    assert.equal(state?.needMs, 2000 + INPUT_QUIET_MS);
  });
});

describe('isStopDue', () => {
  it('once the run has lasted what it needs', () => {
    const state = run({ at: 100 });
    assert.equal(isStopDue(undefined, 1e9), false);
    assert.equal(isStopDue(state, 100 + INPUT_QUIET_MS - 1), false);
    assert.equal(isStopDue(state, 100 + INPUT_QUIET_MS), true);
  });
});

/** A session whose facts the test sets, counting probe and scan calls. */
function fakeSource() {
  const source = {
    parseCount: 1,
    pendingBytes: 0,
    pendingInputBytes: 0,
    sync: false,
    waiting: Number.POSITIVE_INFINITY as number | undefined,
    cpuMs: 0,
    idle: true,
    probes: 0,
    scans: 0,
    isSynchronizedUpdate: () => source.sync,
    inputWait: () => {
      source.probes++;
      return source.waiting === undefined
        ? undefined
        : { waitMs: source.waiting, cpuMs: source.cpuMs };
    },
    othersIdle: () => {
      source.scans++;
      return source.idle;
    },
    /** What the output barrier says; `barrier` runs first (output arriving meanwhile). */
    confirmed: true,
    barrier: () => {},
    confirmInputWait: async () => {
      source.barrier();
      return source.confirmed;
    },
  };
  return source satisfies StopSource;
}

describe('InputStopTracker', () => {
  it('says the stop is due after INPUT_QUIET_MS of samples that all say stop', async () => {
    const source = fakeSource();
    const tracker = new InputStopTracker(source);
    for (let t = 0; t < INPUT_QUIET_MS; t += 20) assert.equal(tracker.poll(t), false, `${t}`);
    assert.equal(tracker.poll(INPUT_QUIET_MS), true);
    assert.equal(tracker.quietMs(INPUT_QUIET_MS + 5), INPUT_QUIET_MS + 5);
    assert.equal(await tracker.confirm(), source.parseCount, 'confirmed on this screen');
  });

  it(`scans the other processes at most every ${OTHERS_SCAN_MS} ms, and afresh on confirm`, async () => {
    const source = fakeSource();
    const tracker = new InputStopTracker(source);
    for (let t = 0; t <= 200; t += 20) tracker.poll(t);
    assert.equal(source.scans, 3, 'at 0, 100 and 200 ms');
    await tracker.confirm();
    assert.equal(source.scans, 4);
  });

  it('a background process seen at a scan starts the run over at the next one', () => {
    const source = fakeSource();
    const tracker = new InputStopTracker(source);
    tracker.poll(0);
    source.idle = false;
    tracker.poll(100);
    source.idle = true;
    assert.equal(tracker.poll(200), false);
    assert.equal(tracker.poll(200 + INPUT_QUIET_MS - 1), false);
    assert.equal(tracker.poll(200 + INPUT_QUIET_MS), true);
  });

  it('does not probe /proc while output waits to be parsed', () => {
    const source = fakeSource();
    const tracker = new InputStopTracker(source);
    source.pendingBytes = 10;
    tracker.poll(0);
    tracker.poll(20);
    assert.equal(source.probes, 0);
    assert.equal(source.scans, 0);
  });

  it('output since the run began fails the confirmation, which starts over', async () => {
    const source = fakeSource();
    const tracker = new InputStopTracker(source);
    tracker.poll(0);
    assert.equal(tracker.poll(INPUT_QUIET_MS), true);
    source.parseCount++;
    assert.equal(await tracker.confirm(), undefined);
    assert.equal(tracker.quietMs(1000), 0);
    assert.equal(tracker.poll(1000), false);
  });

  it('output the barrier brings in, or a barrier that fails, fails the confirmation', async () => {
    const source = fakeSource();
    const tracker = new InputStopTracker(source);
    const due = () => tracker.poll(0) || tracker.poll(INPUT_QUIET_MS);
    source.barrier = () => source.parseCount++;
    assert.equal(due(), true);
    assert.equal(await tracker.confirm(), undefined, 'output came with the barrier');
    source.barrier = () => {};
    source.confirmed = false;
    assert.equal(tracker.poll(1000) || tracker.poll(1000 + INPUT_QUIET_MS), true);
    assert.equal(await tracker.confirm(), undefined, 'the program no longer waits');
    source.confirmInputWait = () => Promise.reject(new Error('the barrier failed'));
    assert.equal(tracker.poll(2000) || tracker.poll(2000 + INPUT_QUIET_MS), true);
    assert.equal(await tracker.confirm(), undefined);
    assert.equal(tracker.quietMs(2500), 0, 'the run starts over');
  });

  it('takes no sample while a confirmation runs', async () => {
    const source = fakeSource();
    const tracker = new InputStopTracker(source);
    tracker.poll(0);
    tracker.poll(INPUT_QUIET_MS);
    const probes = source.probes;
    const confirming = tracker.confirm();
    assert.equal(tracker.isConfirming, true);
    assert.equal(tracker.poll(INPUT_QUIET_MS + 20), false);
    assert.equal(source.probes, probes);
    await confirming;
    assert.equal(tracker.isConfirming, false);
  });

  it('a foreground group that keeps using CPU never gets there', () => {
    const source = fakeSource();
    const tracker = new InputStopTracker(source);
    for (let t = 0; t <= 1000; t += 20) {
      source.cpuMs = t;
      assert.equal(tracker.poll(t), false, `${t}`);
    }
  });

  it('input not yet taken by the terminal fails the confirmation', async () => {
    const source = fakeSource();
    const tracker = new InputStopTracker(source);
    tracker.poll(0);
    tracker.poll(INPUT_QUIET_MS);
    source.pendingInputBytes = 1;
    assert.equal(await tracker.confirm(), undefined);
  });

  it('waits out a refresh loop: due after its timeout plus INPUT_QUIET_MS, not before', () => {
    const source = fakeSource();
    source.waiting = 1500; // htop's refresh
    const tracker = new InputStopTracker(source);
    for (let t = 0; t < 1500 + INPUT_QUIET_MS; t += 20)
      assert.equal(tracker.poll(t), false, `${t}`);
    assert.equal(tracker.poll(1500 + INPUT_QUIET_MS), true);
  });

  it('a process of the session that could print by the confirmation fails it', async () => {
    const source = fakeSource();
    const tracker = new InputStopTracker(source);
    tracker.poll(0);
    assert.equal(tracker.poll(INPUT_QUIET_MS), true);
    source.barrier = () => {
      source.idle = false; // a background job woke meanwhile
    };
    assert.equal(await tracker.confirm(), undefined);
    assert.equal(tracker.quietMs(INPUT_QUIET_MS), 0, 'the run starts over');
  });
});
