/**
 * The input gate on a fake PTY handle: what reaches the program, in which order, and what is
 * refused, when the agent's batches and a person type at once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputGate, type InputRoom } from '../../../src/session/input-gate.js';
import { LIMITS } from '../../../src/shared/config.js';
import { TerminalError } from '../../../src/shared/errors.js';

/** A PTY's input queue that the program never reads: everything written stays pending. */
class FakePty implements InputRoom {
  readonly written: string[] = [];
  pendingInputBytes = 0;
  constructor(readonly limit = LIMITS.maxPendingInputBytes) {}
  hasInputRoom(bytes: number): boolean {
    return this.pendingInputBytes + bytes <= this.limit;
  }
  write(data: Uint8Array): void {
    this.written.push(Buffer.from(data).toString('utf8'));
    this.pendingInputBytes += data.length;
  }
}

function world(limit?: number) {
  const pty = new FakePty(limit);
  const state = { open: true, personInputs: 0 };
  const gate = new InputGate('s1', pty, {
    isOpen: () => state.open,
    deliver: (data) => pty.write(data),
    onPersonInput: () => state.personInputs++,
  });
  return { pty, gate, state };
}

const b = (text: string) => Buffer.from(text, 'utf8');

describe('input gate', () => {
  it("never lets a person's keys land between the agent's text and its Enter", () => {
    const { pty, gate, state } = world();
    gate.beginAgentRun();
    gate.fromAgent(b('git commit -m "fix"'));
    assert.equal(gate.fromPerson(b('q')), true, 'accepted');
    assert.equal(gate.fromPerson(b('w')), true);
    gate.fromAgent(b('\r'));
    assert.deepEqual(pty.written, ['git commit -m "fix"', '\r'], 'held during the run');
    gate.endAgentRun();
    assert.deepEqual(pty.written, ['git commit -m "fix"', '\r', 'q', 'w'], 'then in order');
    assert.equal(state.personInputs, 2);
  });

  it("sends a person's keys at once between the agent's runs", () => {
    const { pty, gate } = world();
    assert.equal(gate.fromPerson(b('y')), true);
    gate.beginAgentRun();
    gate.fromAgent(b('n'));
    gate.endAgentRun();
    gate.endAgentRun();
    assert.equal(gate.fromPerson(b('!')), true);
    assert.deepEqual(pty.written, ['y', 'n', '!']);
  });

  it('drops what was held when the program can no longer take it', () => {
    const { pty, gate, state } = world();
    gate.beginAgentRun();
    assert.equal(gate.fromPerson(b('late')), true);
    state.open = false;
    gate.endAgentRun();
    assert.deepEqual(pty.written, []);
    assert.equal(gate.fromPerson(b('x')), false, 'refused once closed');
    assert.equal(state.personInputs, 1);
  });

  it('refuses a batch over the room with INPUT_BACKLOG, sending nothing', () => {
    const { pty, gate } = world(100);
    pty.pendingInputBytes = 60;
    gate.assertRoom(40);
    assert.throws(
      () => gate.assertRoom(41),
      (err: unknown) => {
        assert.ok(err instanceof TerminalError);
        assert.equal(err.code, 'INPUT_BACKLOG');
        assert.deepEqual(err.details, {
          sessionId: 's1',
          pendingBytes: 60,
          batchBytes: 41,
          limitBytes: LIMITS.maxPendingInputBytes,
        });
        assert.match(err.message, /nothing was sent/);
        return true;
      },
    );
    assert.deepEqual(pty.written, []);
  });

  it('lets a closed session through the room check (its own error comes later)', () => {
    const { pty, gate, state } = world(10);
    pty.pendingInputBytes = 10;
    state.open = false;
    gate.assertRoom(1000);
  });

  it('keeps the room a batch claimed from a person, until it is sent or released', () => {
    const { pty, gate } = world(100);
    gate.claim(90);
    assert.equal(gate.fromPerson(b('x'.repeat(11))), false, 'the claim is kept');
    assert.equal(gate.fromPerson(b('x'.repeat(10))), true, 'up to the limit');
    gate.fromAgent(b('a'.repeat(50)));
    // 10 + 50 pending, 40 still claimed: no room left.
    assert.equal(gate.fromPerson(b('y')), false);
    gate.release();
    assert.equal(gate.fromPerson(b('y'.repeat(40))), true, 'released');
    assert.equal(pty.pendingInputBytes, 100);
  });

  it('counts held keys against the room', () => {
    const { gate } = world(10);
    gate.beginAgentRun();
    assert.equal(gate.fromPerson(b('12345')), true);
    assert.equal(gate.fromPerson(b('67890')), true);
    assert.equal(gate.fromPerson(b('!')), false, 'one byte past the limit with what is held');
    gate.endAgentRun();
  });
});
