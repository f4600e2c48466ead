/**
 * The end-of-run checks of the registry model test (test/property/registry.model.test.ts): once
 * everything has settled, each start, request, close and closeAll ended as its moment allowed.
 * `strict` adds what the registry breaks today (closes racing closes, starts racing closeAll).
 */
import assert from 'node:assert/strict';
import { TerminalError } from '../../src/shared/errors.js';
import type { World } from './registry-world.js';

export const codeOf = (reason: unknown) =>
  reason instanceof TerminalError ? reason.code : undefined;

/** Everything that must hold once the run has ended with closeAll and all work has settled. */
export function checkFinal(world: World, strict: boolean): void {
  assert.deepEqual(world.violations, []);
  assert.equal(world.registry.size, 0, 'nothing retained after closeAll');
  assert.deepEqual(world.registry.list(), []);
  assert.deepEqual(world.registry.pids(), []);
  for (const s of world.sessions) {
    assert.equal(s.closeCalls, 1, `${s.id} closed exactly once`);
    assert.equal(s.closeFinished, true, `${s.id} finished closing`);
    assert.equal(s.queue.size, 0, `${s.id} has no work left`);
  }
  checkStarts(world);
  checkRequests(world);
  checkCloses(world, strict);
}

function checkStarts(world: World): void {
  for (const [i, start] of world.starts.entries()) {
    const { outcome } = start;
    const label = `start ${i} (${start.plan})`;
    assert.ok(outcome, `${label} was left pending`);
    if (start.refusedWith) {
      assert.equal(start.factoryCalled, false, `${label} spawned though refused`);
      assert.equal(
        outcome.status === 'rejected' && codeOf(outcome.reason),
        start.refusedWith,
        label,
      );
    } else if (start.plan === 'throws' || start.plan === 'slow-throws') {
      assert.equal(start.session, undefined);
      assert.equal(outcome.status === 'rejected' && codeOf(outcome.reason), 'SPAWN_FAILED', label);
    } else if (outcome.status === 'fulfilled') {
      assert.equal(outcome.value, start.session, label);
    } else {
      // Spawned while closeAll ran: closed at once, refused.
      assert.equal(codeOf(outcome.reason), 'SESSION_CLOSED', label);
      assert.ok(world.closeAllCalled && start.session?.closed, label);
    }
  }
}

function checkRequests(world: World): void {
  for (const r of world.requests) {
    const { outcome } = r;
    const label = `${r.kind} ${r.seq} on ${r.sessionId}`;
    assert.ok(outcome, `${label} was left pending`);
    const code = outcome.status === 'rejected' ? codeOf(outcome.reason) : undefined;
    if (r.refusedWith) {
      assert.equal(code, r.refusedWith, label);
    } else if (r.kind === 'snapshot') {
      const closed = code === 'SESSION_CLOSED' && r.session?.closed;
      const cancelled = code === 'CANCELLED' && r.controller.signal.aborted;
      assert.ok(outcome.status === 'fulfilled' || closed || cancelled, label);
    } else if (r.cancelledBeforeStart) {
      assert.equal(r.started, false, label);
      assert.equal(code, 'CANCELLED', label);
    } else if (!r.started) {
      assert.equal(code, 'SESSION_CLOSED', `${label}: never ran, so its session closed`);
    } else if (r.expectedAbort) {
      assert.ok(r.signal?.aborted, `${label}: running job not aborted`);
      assert.equal(codeOf(r.signal.reason), r.expectedAbort, label);
      if (r.honorsAbort)
        assert.equal(outcome.status === 'rejected' && outcome.reason, r.signal.reason);
    } else if (outcome.status === 'fulfilled') {
      assert.equal(outcome.value, r.seq, label);
      assert.equal(r.fails, false, label);
    } else {
      const aborted = r.honorsAbort && (code === 'CANCELLED' || code === 'SESSION_CLOSED');
      assert.ok(aborted || (r.fails && outcome.reason instanceof Error), label);
    }
  }
  for (const s of world.sessions) {
    assert.deepEqual(
      s.startedJobs,
      [...s.startedJobs].sort((a, b) => a - b),
      `FIFO in ${s.id}`,
    );
  }
}

function checkCloses(world: World, strict: boolean): void {
  for (const c of world.closes) {
    assert.deepEqual(c.outcome, { status: 'fulfilled', value: c.expected }, `close ${c.sessionId}`);
    if (c.expected)
      assert.equal(c.closeFinishedAtReply, true, `close ${c.sessionId} returned early`);
    if (strict && c.session?.closed) {
      assert.equal(
        c.closeFinishedAtReply,
        true,
        `close ${c.sessionId} raced a close, returned early`,
      );
    }
  }
  for (const [i, all] of world.closeAlls.entries()) {
    assert.equal(all.outcome?.status, 'fulfilled', `closeAll ${i}`);
    assert.equal(all.sizeAtReply, 0, `closeAll ${i} left sessions`);
    for (const s of all.covers) {
      assert.ok(all.finishedAtReply?.includes(s), `closeAll ${i} returned before ${s.id} closed`);
    }
    if (!strict) continue;
    for (const start of all.startsInFlight) {
      assert.ok(start.outcome, `closeAll ${i} returned before a start in flight ended`);
      if (start.session) assert.ok(all.finishedAtReply?.includes(start.session), 'late start');
    }
  }
}
