/**
 * What a person attached to a session types (agent-tty attach) and the agent's batches: held while
 * a run of the agent's actions is sent, then delivered in order, within the same bound as the
 * agent's input; dropped, never sent elsewhere, when the session ends meanwhile.
 * Contract: spec/attach.md (Typing).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LIMITS } from '../../../src/shared/config.js';
import { type InMemoryServer, startInMemoryServer } from '../../helpers/in-memory-server.js';
import { sleep } from '../../helpers/wait.js';

const SH = { shell: '/bin/sh', login: false };
const T = { timeout: 30_000 };

describe("a person's input during the agent's batch", () => {
  let s: InMemoryServer;
  before(async () => {
    s = await startInMemoryServer();
  });
  after(async () => {
    assert.deepEqual(await s.close(), [], 'no process of any session is left');
  });

  it('waits while a run of the agent is sent, then reaches the program in order', T, async () => {
    const { sessionId } = (
      await s.call('terminal_start', { command: 'cat', ...SH, cols: 30, rows: 4 })
    ).data as { sessionId: string };
    const session = s.registry.get(sessionId);
    session.input.beginAgentRun();
    assert.equal(session.input.fromPerson(Buffer.from('one ')), true);
    assert.equal(session.input.fromPerson(Buffer.from('two')), true);
    await sleep(200);
    const held = await s.call('terminal_snapshot', { sessionId, settleMs: 0 });
    assert.equal(held.data.snapshot?.screen[0] ?? '', '', 'nothing reached the program yet');
    session.input.endAgentRun();
    const shown = await s.waitFor(sessionId, (x) => x.screen[0] === 'one two');
    assert.equal(shown.screen[0], 'one two');
    // Outside a run it goes through at once.
    assert.equal(session.input.fromPerson(Buffer.from('!')), true);
    await s.waitFor(sessionId, (x) => x.screen[0] === 'one two!');
    await s.call('terminal_close', { sessionId });
  });

  it(
    'counts what is held, and what the running batch claimed, against the limit of unread input',
    T,
    async () => {
      const { sessionId } = (await s.call('terminal_start', { command: 'exec sleep 60', ...SH }))
        .data as { sessionId: string };
      const session = s.registry.get(sessionId);
      const limit = LIMITS.maxPendingInputBytes;
      session.input.claim(limit - 10);
      assert.equal(session.input.fromPerson(Buffer.alloc(11, 'c')), false, 'the claim is kept');
      session.input.release();
      session.input.beginAgentRun();
      assert.equal(session.input.fromPerson(Buffer.alloc(limit - 1, 'x')), true);
      assert.equal(session.input.fromPerson(Buffer.from('y')), true, 'up to the limit');
      assert.equal(session.input.fromPerson(Buffer.from('z')), false, 'one byte past it');
      // Ended while held: the close discards it, and the end of the run sends nothing.
      await s.call('terminal_close', { sessionId });
      session.input.endAgentRun();
    },
  );
});
