/**
 * terminateSession's phases on a fake process table and a clock that moves only when it sleeps:
 * the hang-up (the leader, then after LEADER_GRACE_MS the foreground group the leader waits on),
 * SIGTERM at the end of the hang-up grace, the kill sweep and its give-up, each phase ending as
 * soon as nothing is left; rescans that catch processes forked meanwhile; empty scans that could
 * have missed one. Real processes: test/integration/pty.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProcessInfo, ScanVisitor, SessionScan } from '../../../src/pty/processes.js';
import {
  type TerminateDeps,
  type TerminateOptions,
  terminateSession,
} from '../../../src/pty/terminate.js';

/** A process of the fake session and how it takes signals. */
interface Proc {
  readonly pid: number;
  readonly pgrp: number;
  readonly state?: string;
  readonly tpgid?: number;
  /** Signals that end it (SIGKILL always does, unless `unkillable`). */
  readonly diesOn?: readonly NodeJS.Signals[];
  /** How long it takes to exit once a signal ends it (its traps run meanwhile). */
  readonly exitMs?: number;
  /** A process in uninterruptible sleep: not even SIGKILL ends it. */
  readonly unkillable?: boolean;
  /** When it is forked (ms on the fake clock); there from the start when undefined. */
  readonly bornAt?: number;
}

const SID = 100;
const TTY = '/dev/pts/9';
const OPTIONS: TerminateOptions = { hangupGraceMs: 500, termGraceMs: 100, killGraceMs: 1000 };

/** A session of fake processes; signals are recorded as "at signal target". */
function world(procs: Proc[], options: { incompleteScans?: number; sid?: number } = {}) {
  const sid = options.sid ?? SID;
  let now = 0;
  let incomplete = options.incompleteScans ?? 0;
  const all = new Map(procs.map((p) => [p.pid, p]));
  const dieAt = new Map<number, number>();
  const dead = new Set<number>();
  const sent: string[] = [];
  /** When the table was scanned. */
  const scans: number[] = [];
  const isThere = (p: Proc) => !dead.has(p.pid) && (p.bornAt ?? 0) <= now;
  const reap = () => {
    for (const [pid, at] of dieAt) if (at <= now) dead.add(pid);
  };
  const deps: TerminateDeps = {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
      reap();
      // A phase that never ends fails here rather than spinning on.
      if (now > 60_000) throw new Error('still waiting after 60 s: a phase never ended');
    },
    kill: (target, signal) => {
      sent.push(`${now} ${signal} ${target}`);
      const hit = [...all.values()].filter(
        (p) => isThere(p) && (target > 0 ? p.pid === target : p.pgrp === -target),
      );
      if (hit.length === 0) throw Object.assign(new Error('kill ESRCH'), { code: 'ESRCH' });
      for (const p of hit) {
        if (signal === 'SIGKILL' && !p.unkillable) dead.add(p.pid);
        else if (p.diesOn?.includes(signal) && !dieAt.has(p.pid)) {
          dieAt.set(p.pid, now + (p.exitMs ?? 0));
        }
      }
      reap();
    },
    table: {
      scan: async (scanned: number, ttyPath: string, visit?: ScanVisitor): Promise<SessionScan> => {
        assert.deepEqual([scanned, ttyPath], [sid, TTY]);
        scans.push(now);
        const seen: ProcessInfo[] = [...all.values()].filter(isThere).map((p) => ({
          pid: p.pid,
          pgrp: p.pgrp,
          state: p.state ?? 'S',
          ...(p.tpgid !== undefined ? { tpgid: p.tpgid } : {}),
        }));
        for (const p of seen) visit?.(p);
        const complete = incomplete === 0;
        if (!complete) incomplete--;
        return { procs: seen, complete };
      },
      isAlive: (pid) => {
        const p = all.get(pid);
        return p !== undefined && isThere(p);
      },
    },
  };
  return {
    deps,
    sent,
    scans,
    now: () => now,
    terminate: (options: Partial<TerminateOptions> = {}) =>
      terminateSession(sid, TTY, { ...OPTIONS, ...options }, deps),
  };
}

/** A shell leading the session, its foreground group being `tpgid`. */
const leader = (extra: Partial<Proc> = {}, tpgid = SID): Proc => ({
  pid: SID,
  pgrp: SID,
  tpgid,
  diesOn: ['SIGHUP'],
  ...extra,
});

describe('terminateSession', () => {
  it('signals nothing when a complete scan finds the session empty', async () => {
    const w = world([]);
    assert.deepEqual(await w.terminate(), { signals: [], survivors: [] });
    assert.deepEqual(w.sent, []);
    assert.equal(w.now(), 0);
  });

  it('hangs up the leader only, and returns as soon as it has gone, well inside the grace', async () => {
    const w = world([leader({ exitMs: 30 })]);
    assert.deepEqual(await w.terminate(), { signals: ['SIGHUP'], survivors: [] });
    assert.deepEqual(w.sent, [`0 SIGHUP ${SID}`, `0 SIGCONT ${SID}`]);
    assert.equal(w.now(), 32, 'the first look after its exit at 30 ms (every 4 ms)');
  });

  it('hangs up the foreground group the leader waits on after 250 ms, only those there at the hang-up', async () => {
    const w = world([
      leader({ diesOn: [] }, 200),
      // The foreground job the shell waits on (a start-up file's command), and a background job.
      { pid: 201, pgrp: 200, tpgid: 200, diesOn: ['SIGHUP'], exitMs: 10 },
      { pid: 301, pgrp: 300, tpgid: 200, diesOn: ['SIGTERM'] },
      // Forked after the hang-up (a trap's command): not hung up again.
      { pid: 202, pgrp: 200, tpgid: 200, bornAt: 100, diesOn: ['SIGTERM'] },
    ]);
    const report = await w.terminate({ hangupGraceMs: 750 });
    assert.deepEqual(
      w.sent.filter((s) => Number(s.split(' ')[0]) < 752),
      [`0 SIGHUP ${SID}`, `0 SIGCONT ${SID}`, '252 SIGHUP 201', '252 SIGCONT 201'],
    );
    const term = w.sent.filter((s) => s.includes('SIGTERM'));
    assert.ok(
      term.every((s) => s.startsWith('752 ')),
      `SIGTERM at the end of the hang-up grace: ${term}`,
    );
    assert.deepEqual(report.signals, ['SIGHUP', 'SIGTERM', 'SIGKILL']);
    assert.deepEqual(report.survivors, []);
  });

  it('takes the foreground group from another process when the leader has none, else the leader group (ps)', async () => {
    const fromOthers = world([
      { pid: SID, pgrp: SID, diesOn: ['SIGTERM'] },
      { pid: 201, pgrp: 200, tpgid: 200, diesOn: ['SIGHUP'] },
    ]);
    await fromOthers.terminate();
    assert.ok(fromOthers.sent.includes('252 SIGHUP 201'), `${fromOthers.sent}`);
    const ps = world([
      { pid: SID, pgrp: SID, diesOn: ['SIGTERM'] },
      { pid: 101, pgrp: SID, diesOn: ['SIGHUP'] },
      { pid: 201, pgrp: 200, diesOn: ['SIGTERM'] },
    ]);
    await ps.terminate();
    assert.ok(ps.sent.includes('252 SIGHUP 101'), `${ps.sent}`);
    assert.ok(!ps.sent.some((s) => s.endsWith('SIGHUP 201')), 'not the other group');
  });

  it('does not hang up the foreground group once the leader has gone; SIGTERM at the end of the grace', async () => {
    const w = world([
      leader({ exitMs: 10 }),
      { pid: 201, pgrp: 200, tpgid: 200, diesOn: ['SIGTERM'], exitMs: 20 },
    ]);
    const report = await w.terminate({ hangupGraceMs: 600 });
    assert.deepEqual(report, { signals: ['SIGHUP', 'SIGTERM'], survivors: [] });
    assert.deepEqual(w.sent, [
      `0 SIGHUP ${SID}`,
      `0 SIGCONT ${SID}`,
      '600 SIGTERM -200',
      '600 SIGTERM 201',
    ]);
    assert.equal(w.now(), 620, 'returns at the first look after the exit');
  });

  it('a hang-up grace shorter than the leader grace bounds the hang-up', async () => {
    const w = world([leader({ diesOn: ['SIGTERM'] }, 200), { pid: 201, pgrp: 200, tpgid: 200 }]);
    await w.terminate({ hangupGraceMs: 100 });
    assert.ok(w.sent.includes('100 SIGHUP 201'), `${w.sent}`);
    const term = w.sent.find((s) => s.includes('SIGTERM'));
    assert.equal(term, '104 SIGTERM -100', 'no rest of the grace to wait out');
  });

  it('SIGTERM goes to each group once and each process, and wakes stopped ones', async () => {
    const w = world([
      leader({ diesOn: ['SIGTERM'] }),
      { pid: 101, pgrp: SID, diesOn: ['SIGTERM'] },
      { pid: 201, pgrp: 200, state: 'T', diesOn: ['SIGTERM'] },
    ]);
    const report = await w.terminate({ hangupGraceMs: 0 });
    assert.deepEqual(report, { signals: ['SIGHUP', 'SIGTERM'], survivors: [] });
    // No grace: one look for the leader, one after the foreground group's hang-up.
    assert.deepEqual(
      w.sent.filter((s) => s.startsWith('8 ')),
      [
        '8 SIGTERM -100',
        '8 SIGTERM -200',
        '8 SIGTERM 100',
        '8 SIGTERM 101',
        '8 SIGTERM 201',
        '8 SIGCONT -100',
        '8 SIGCONT -200',
      ],
    );
  });

  it('sends no SIGCONT after SIGTERM when nothing is stopped', async () => {
    const w = world([leader({ diesOn: ['SIGTERM'] })]);
    await w.terminate({ hangupGraceMs: 0 });
    assert.deepEqual(w.sent.slice(2), ['8 SIGTERM -100', '8 SIGTERM 100']);
  });

  it('kills on sight, group first, once SIGHUP and SIGTERM have not sufficed', async () => {
    const w = world([leader({ diesOn: [] }), { pid: 201, pgrp: 200, diesOn: [] }]);
    const report = await w.terminate();
    assert.deepEqual(report, { signals: ['SIGHUP', 'SIGTERM', 'SIGKILL'], survivors: [] });
    // SIGTERM at 500, the end of the hang-up grace; the sweep at 600, the end of the term grace.
    assert.deepEqual(
      w.sent.filter((s) => s.includes('SIGKILL')),
      ['600 SIGKILL -100', '600 SIGKILL 100', '600 SIGKILL -200', '600 SIGKILL 201'],
    );
    assert.equal(w.now(), 604, 'one scan more, which finds nothing');
  });

  it('gives up the sweep after killGraceMs and reports the survivors', async () => {
    const w = world([leader({ diesOn: [], unkillable: true })]);
    const report = await w.terminate({ killGraceMs: 200 });
    assert.deepEqual(report, { signals: ['SIGHUP', 'SIGTERM', 'SIGKILL'], survivors: [SID] });
    const kills = w.sent.filter((s) => s.endsWith(`SIGKILL ${SID}`));
    assert.equal(kills[0], `600 SIGKILL ${SID}`);
    assert.equal(kills.length, 51, 'scan after scan, every 4 ms, until the bound');
    assert.equal(kills.at(-1), `800 SIGKILL ${SID}`);
    assert.equal(w.now(), 800);
  });

  it('rescans every 24 ms while processes remain, and SIGTERMs what was forked meanwhile', async () => {
    const w = world([
      leader({ diesOn: ['SIGTERM'] }),
      { pid: 201, pgrp: 200, bornAt: 30, diesOn: ['SIGTERM'] },
    ]);
    const report = await w.terminate();
    assert.deepEqual(report, { signals: ['SIGHUP', 'SIGTERM'], survivors: [] });
    assert.deepEqual(
      w.scans.filter((at) => at <= 252),
      [0, 24, 48, 72, 96, 120, 144, 168, 192, 216, 240, 252],
      'the first scan, a rescan every 24 ms, and one at the end of the leader grace',
    );
    assert.deepEqual(
      w.sent.filter((s) => s.includes('SIGTERM')),
      ['500 SIGTERM -100', '500 SIGTERM -200', '500 SIGTERM 100', '500 SIGTERM 201'],
    );
  });

  it('trusts an empty scan that could have missed a process only after three in a row', async () => {
    const w = world([], { incompleteScans: 5 });
    const report = await w.terminate();
    assert.deepEqual(report, { signals: ['SIGHUP'], survivors: [] });
    assert.equal(w.now(), 8, 'the first scan, then two more 4 ms apart');
  });

  it('carries on past signals that fail (the process has gone, or is not ours)', async () => {
    const w = world([leader({ exitMs: 10 })]);
    const kill = w.deps.kill;
    const deps: TerminateDeps = {
      ...w.deps,
      kill: (target, signal) => {
        kill(target, signal);
        throw Object.assign(new Error('kill EPERM'), { code: 'EPERM' });
      },
    };
    const report = await terminateSession(SID, TTY, OPTIONS, deps);
    assert.deepEqual(report, { signals: ['SIGHUP'], survivors: [] });
  });

  it('never signals pid 1, its own process, or their groups, as members or as leaders', async () => {
    const procs = (sid: number): Proc[] => [
      { pid: sid, pgrp: sid, diesOn: [] },
      { pid: 1, pgrp: 1, diesOn: [] },
      { pid: process.pid, pgrp: process.pid, diesOn: [] },
      { pid: 201, pgrp: 200, diesOn: ['SIGTERM'] },
    ];
    for (const sid of [SID, 1, process.pid]) {
      const w = world(procs(sid), { sid });
      await w.terminate({ killGraceMs: 20 });
      const targets = new Set(w.sent.map((s) => Number(s.split(' ')[2])));
      for (const never of [1, -1, process.pid, -process.pid]) {
        assert.equal(targets.has(never), false, `${never} was signalled: ${w.sent}`);
      }
      assert.ok(targets.has(201), 'the others were');
    }
  });
});
