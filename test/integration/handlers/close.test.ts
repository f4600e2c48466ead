/**
 * terminal_close through createServer on an in-memory MCP connection, for a server meant to run
 * for days: a closed session leaves nothing the server keeps. Contract: spec/tools.md
 * (terminal_close), spec/guarantees.md (bounds).
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { type InMemoryServer, startInMemoryServer } from '../../helpers/in-memory-server.js';
import { trials } from '../../helpers/layers.js';

const CYCLES = trials(100, 20);

describe('terminal_close handler', () => {
  let s: InMemoryServer;
  before(async () => {
    s = await startInMemoryServer();
  });
  after(async () => {
    assert.deepEqual(await s.close(), [], 'no process of any session is left');
  });

  it(`keeps no listener of a closed shell on the server's own signal (${CYCLES} cycles)`, {
    timeout: 300_000,
  }, async () => {
    // The registry's shutdown signal lives as long as the server; a close of an interactive
    // shell waits on it for the shell's start-up (startup-close.ts).
    const shutdown = (s.registry as unknown as { _shutdown: AbortController })._shutdown.signal;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const { id } = await s.start({ shell: '/bin/bash', login: false, settleMs: 0 });
      const closed = await s.call('terminal_close', { sessionId: id });
      assert.equal(closed.data.closed, true, closed.text);
    }
    assert.equal(getEventListeners(shutdown, 'abort').length, 0, 'listeners left on the signal');
    assert.doesNotMatch(s.logs(), /MaxListenersExceeded/);
    const listed = await s.call('terminal_list');
    assert.deepEqual(listed.data.sessions, []);
  });
});
