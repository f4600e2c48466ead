/**
 * What the registry says of a session it no longer has: who closed it (terminal_close,
 * autoClose, the idle timeout), remembered for a bounded number of ids; and what counts as use
 * for the idle timeout (a batch running, a person attached).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SessionRegistry } from '../../../src/session/registry.js';
import type { Session, SessionSpec } from '../../../src/session/session.js';
import { TerminalError } from '../../../src/shared/errors.js';
import { PLAN } from '../../helpers/registry-world.js';
import { waitUntil } from '../../helpers/wait.js';

interface Fake {
  readonly id: string;
  closed: boolean;
  queued: number;
  watchers: number;
}

function world(options: { idleTimeoutMs?: number; now?: () => number } = {}) {
  const made: Fake[] = [];
  const registry = new SessionRegistry(
    { maxSessions: 1000, scrollbackLines: 0, ...options },
    (spec: SessionSpec) => {
      const fake: Fake = { id: spec.id, closed: false, queued: 0, watchers: 0 };
      made.push(fake);
      return {
        id: spec.id,
        pid: 1,
        info: () => ({ sessionId: spec.id }),
        get queue() {
          return { size: fake.queued };
        },
        get presence() {
          return { watchers: fake.watchers };
        },
        close: async () => {
          fake.closed = true;
        },
      } as unknown as Session;
    },
  );
  const start = async () => (await registry.start({ plan: PLAN, cols: 80, rows: 24 })).id;
  return { registry, made, start };
}

function notFound(registry: SessionRegistry, id: string): string {
  try {
    registry.get(id);
  } catch (err) {
    assert.ok(err instanceof TerminalError);
    assert.equal(err.code, 'SESSION_NOT_FOUND');
    assert.deepEqual(err.details, { sessionId: id });
    return err.message;
  }
  assert.fail(`${id} was found`);
}

describe('a session the registry no longer has', () => {
  it('is one no session ever had: terminal_list is the next step', () => {
    const { registry } = world();
    assert.equal(
      notFound(registry, 't9'),
      'session "t9" not found; call terminal_list to see open sessions',
    );
  });

  it('was closed by terminal_close, or by autoClose, and the error says which', async () => {
    const { registry, start } = world();
    const a = await start();
    const b = await start();
    await registry.close(a);
    await registry.close(b, 'autoClose');
    assert.equal(
      notFound(registry, a),
      `session "${a}" was closed by terminal_close; start a new one with terminal_start if you still need it`,
    );
    assert.match(notFound(registry, b), /was closed as terminal_start returned \(autoClose\)/);
  });

  it('was closed by the idle timeout, and the error says after how long', async () => {
    let now = 0;
    const { registry, start, made } = world({ idleTimeoutMs: 20, now: () => now });
    const id = await start();
    now = 25;
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(made[0]?.closed, true);
    assert.equal(
      notFound(registry, id),
      `session "${id}" was closed after 20 ms with no tool call naming it (the server's --idle-timeout), and its processes ended; start a new one with terminal_start if you still need it`,
    );
    await registry.closeAll();
  });

  it('says a longer idle timeout in words', async () => {
    let now = 0;
    const { registry, start, made } = world({ idleTimeoutMs: 2000, now: () => now });
    const id = await start();
    now = 2500;
    await waitUntil(() => made[0]?.closed === true, 'the idle session closed', 5000);
    assert.match(notFound(registry, id), /was closed after 2\.0 s with no tool call naming it/);
    await registry.closeAll();
  });

  it('is remembered for the last 256 closes only, the oldest forgotten first', async () => {
    const { registry, start } = world();
    const ids: string[] = [];
    for (let i = 0; i < 257; i++) {
      ids.push(await start());
      await registry.close(ids[i] as string);
    }
    assert.match(notFound(registry, ids[0] as string), /not found; call terminal_list/);
    assert.match(notFound(registry, ids[1] as string), /was closed by terminal_close/);
    assert.match(notFound(registry, ids[256] as string), /was closed by terminal_close/);
  });
});

describe('the idle timeout', () => {
  it('does not close a session a person is attached to, and starts over once they detach', async () => {
    let now = 0;
    const { registry, start, made } = world({ idleTimeoutMs: 40, now: () => now });
    const id = await start();
    const fake = made[0] as Fake;
    fake.watchers = 1;
    now = 100;
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(fake.closed, false, 'kept while a person is attached');
    fake.watchers = 0;
    now = 130; // 30 ms after the last tick that saw the person: not yet idle for 40
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(fake.closed, false, 'the timeout started over when the person left');
    now = 200;
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(fake.closed, true);
    assert.match(notFound(registry, id), /was closed after 40 ms with no tool call naming it/);
  });

  it('does not close a session with a batch running, and closes every other idle one', async () => {
    let now = 0;
    const { registry, start, made } = world({ idleTimeoutMs: 20, now: () => now });
    const busy = await start();
    const idle = await start();
    (made[0] as Fake).queued = 1;
    now = 50;
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.deepEqual(
      made.map((f) => f.closed),
      [false, true],
    );
    assert.match(notFound(registry, idle), /was closed after 20 ms/);
    await registry.closeAll();
    assert.match(notFound(registry, busy), /was closed as the server shut down/);
  });
});
