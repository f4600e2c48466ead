import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Presence } from '../../../src/session/presence.js';
import { presenceLine } from '../../../src/tools/presence.js';

describe('presence', () => {
  it('counts watchers in and out, each once', () => {
    const p = new Presence();
    const leaveA = p.join();
    const leaveB = p.join();
    assert.equal(p.watchers, 2);
    leaveA();
    leaveA();
    assert.equal(p.watchers, 1);
    leaveB();
    assert.equal(p.watchers, 0);
  });

  it('reports that a person typed once, then starts over', () => {
    const p = new Presence();
    const leave = p.join();
    p.markTyped();
    assert.deepEqual(p.take(), { watchers: 1, personTyped: true });
    assert.deepEqual(p.take(), { watchers: 1, personTyped: false });
    p.markTyped();
    leave();
    assert.deepEqual(p.take(), { watchers: 0, personTyped: true }, 'also after they detached');
  });

  it('says one line for each case, and nothing when nobody is there', () => {
    const cmd = 'agent-tty attach t3';
    assert.equal(presenceLine(0, false, cmd), '');
    assert.equal(presenceLine(1, false, cmd), 'a person is watching (agent-tty attach t3)');
    assert.equal(presenceLine(2, false, cmd), '2 people are watching (agent-tty attach t3)');
    assert.equal(
      presenceLine(1, true, cmd),
      'a person attached (agent-tty attach t3) typed since your last call: read the screen before you type',
    );
    assert.equal(presenceLine(0, true, cmd), 'a person typed since your last call (now detached)');
    assert.equal(presenceLine(1, false, undefined), 'a person is watching');
  });
});
