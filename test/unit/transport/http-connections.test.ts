/**
 * The connection gate on a fake clock (issue 35, S4): a connection that sends no token within the
 * deadline is closed; connections without the token have their own slots, the oldest closed for a
 * newcomer, so they never take the slots of connections with it, even from the same address.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type ConnectionDrop,
  ConnectionGate,
  type ConnectionLimits,
} from '../../../src/transport/http-connections.js';
import { FakeClock } from '../../helpers/fakes.js';

const LIMITS: ConnectionLimits = {
  maxProvenConnections: 4,
  maxUnprovenConnections: 3,
  proofDeadlineMs: 2000,
};

class FakeConnection {
  isDestroyed = false;
  destroy(): void {
    this.isDestroyed = true;
  }
}

function gateOnFakeClock() {
  const clock = new FakeClock();
  const drops: ConnectionDrop[] = [];
  const gate = new ConnectionGate(LIMITS, { clock, onDrop: (_address, why) => drops.push(why) });
  const open = (port: number) => {
    const connection = new FakeConnection();
    gate.admit(`127.0.0.1 ${port}`, '127.0.0.1', connection);
    return connection;
  };
  return { clock, gate, drops, open };
}

describe('ConnectionGate', () => {
  it('closes a connection that sent no token by the deadline, not one that did', async () => {
    const { clock, gate, drops, open } = gateOnFakeClock();
    const idle = open(1);
    const honest = open(2);
    await clock.advance(10);
    assert.equal(gate.prove('127.0.0.1 2'), 'proven');
    await clock.advance(LIMITS.proofDeadlineMs - 11);
    assert.equal(idle.isDestroyed, false, 'not before the deadline');
    await clock.advance(1);
    assert.equal(idle.isDestroyed, true, 'closed at the deadline');
    assert.equal(honest.isDestroyed, false, 'a proven connection stays');
    await clock.advance(60_000);
    assert.equal(honest.isDestroyed, false);
    assert.deepEqual(drops, ['no-token-in-time']);
    assert.equal(clock.pendingTimers, 0, 'no timer left behind');
  });

  it('leaves a connection whose refusal is held to that refusal, held no longer than the deadline', async () => {
    const { clock, gate, open } = gateOnFakeClock();
    const refused = open(1);
    await clock.advance(500);
    assert.equal(gate.hold('127.0.0.1 1'), LIMITS.proofDeadlineMs - 500);
    await clock.advance(LIMITS.proofDeadlineMs);
    assert.equal(refused.isDestroyed, false, 'its refusal closes it');
    assert.equal(gate.hold('127.0.0.1 9'), Number.POSITIVE_INFINITY, 'unknown: not bounded here');
  });

  it('closes the oldest connection without the token for a newcomer, never a proven one', () => {
    const { gate, drops, open } = gateOnFakeClock();
    const proven = [open(100), open(101)];
    gate.prove('127.0.0.1 100');
    gate.prove('127.0.0.1 101');
    // An attacker at the same address keeps every slot without the token full.
    const held = [open(1), open(2), open(3)];
    const honest = open(4);
    assert.deepEqual(
      held.map((c) => c.isDestroyed),
      [true, false, false],
      'the oldest made room',
    );
    assert.equal(honest.isDestroyed, false);
    assert.equal(gate.prove('127.0.0.1 4'), 'proven', 'the newcomer sends its token and is kept');
    assert.equal(
      proven.some((c) => c.isDestroyed),
      false,
    );
    assert.deepEqual(drops, ['unproven-slots-full']);
    assert.equal(gate.unprovenCount, 2);
    assert.equal(gate.provenCount, 3);
  });

  it('evicts the oldest even when every slot holds a refusal, so a newcomer still gets in', () => {
    const { gate, open } = gateOnFakeClock();
    const held = [open(1), open(2), open(3)];
    for (const port of [1, 2, 3]) gate.hold(`127.0.0.1 ${port}`);
    const honest = open(4);
    assert.equal(held[0]?.isDestroyed, true);
    assert.equal(honest.isDestroyed, false);
  });

  it('refuses to prove past maxProvenConnections, and takes one again once another closed', () => {
    const { gate, open } = gateOnFakeClock();
    const connections = [1, 2, 3, 4].map((port) => {
      const connection = open(port);
      assert.equal(gate.prove(`127.0.0.1 ${port}`), 'proven');
      return connection;
    });
    open(5);
    assert.equal(gate.prove('127.0.0.1 5'), 'full');
    assert.equal(gate.isProven('127.0.0.1 5'), false);
    gate.closed('127.0.0.1 1', connections[0] as FakeConnection);
    assert.equal(gate.prove('127.0.0.1 5'), 'proven');
  });

  it('forgets closed connections, and a reused port is a new connection', async () => {
    const { clock, gate, open } = gateOnFakeClock();
    const first = open(1);
    gate.closed('127.0.0.1 1', first);
    const second = open(1);
    gate.closed('127.0.0.1 1', first); // a late close of the first leaves the second counted
    assert.equal(gate.unprovenCount, 1);
    gate.closed('127.0.0.1 1', second);
    assert.equal(gate.unprovenCount, 0);
    assert.equal(clock.pendingTimers, 0);
  });

  it('looks only after pending I/O: a request parsed meanwhile keeps its connection', async () => {
    const clock = new FakeClock();
    const deferred: (() => void)[] = [];
    const gate = new ConnectionGate(LIMITS, { clock, afterIo: (fn) => deferred.push(fn) });
    const connection = new FakeConnection();
    gate.admit('127.0.0.1 1', '127.0.0.1', connection);
    await clock.advance(LIMITS.proofDeadlineMs);
    assert.equal(deferred.length, 1);
    gate.prove('127.0.0.1 1'); // the request read in the same turn of the event loop
    deferred[0]?.();
    assert.equal(connection.isDestroyed, false);
  });
});
