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

interface Fake {
  readonly id: string;
  closed: boolean;
  queued: number;
  watchers: number;
}

/**
 * A registry of fake sessions on a clock the test sets. The idle timeout's tick reads the clock
 * once, so ticks() waits for the next ones rather than for a guess at how long they take.
 */
function world(options: { idleTimeoutMs?: number } = {}) {
  const made: Fake[] = [];
  let time = 0;
  let reads = 0;
  const waiting: { at: number; resolve: () => void }[] = [];
  const now = () => {
    reads++;
    for (const w of waiting.filter((w) => reads >= w.at)) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve();
    }
    return time;
  };
  /** Resolves once `n` more idle ticks have run (and the closes they began have ended). */
  const ticks = async (n = 1) => {
    // The registry's timer does not keep the process alive (unref): this does, meanwhile.
    const alive = setInterval(() => undefined, 1000);
    await new Promise<void>((resolve) => waiting.push({ at: reads + n, resolve }));
    clearInterval(alive);
    await new Promise((resolve) => setImmediate(resolve));
  };
  const registry = new SessionRegistry(
    { maxSessions: 1000, scrollbackLines: 0, ...options, now },
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
  const at = (ms: number) => {
    time = ms;
  };
  return { registry, made, start, at, ticks };
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
    const { registry, start, made, at, ticks } = world({ idleTimeoutMs: 20 });
    const id = await start();
    at(19);
    await ticks();
    assert.equal(made[0]?.closed, false, 'idle for 19 ms of 20');
    at(20);
    await ticks();
    assert.equal(made[0]?.closed, true);
    assert.equal(
      notFound(registry, id),
      `session "${id}" was closed after 20 ms with no tool call naming it (the server's --idle-timeout), and its processes ended; start a new one with terminal_start if you still need it`,
    );
    await registry.closeAll();
  });

  it('says a longer idle timeout in words', async () => {
    const { registry, start } = world({ idleTimeoutMs: 2000 });
    const id = await start();
    await registry.close(id, 'idle');
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
    const { registry, start, made, at, ticks } = world({ idleTimeoutMs: 40 });
    const id = await start();
    const fake = made[0] as Fake;
    fake.watchers = 1;
    at(100);
    await ticks();
    assert.equal(fake.closed, false, 'kept while a person is attached');
    fake.watchers = 0;
    at(130); // 30 ms after the last tick that saw the person: not yet idle for 40
    await ticks();
    assert.equal(fake.closed, false, 'the timeout started over when the person left');
    at(140);
    await ticks();
    assert.equal(fake.closed, true);
    assert.match(notFound(registry, id), /was closed after 40 ms with no tool call naming it/);
  });

  it('does not close a session with a batch running, and closes every other idle one', async () => {
    const { registry, start, made, at, ticks } = world({ idleTimeoutMs: 20 });
    const busy = await start();
    const idle = await start();
    (made[0] as Fake).queued = 1;
    at(50);
    await ticks();
    assert.deepEqual(
      made.map((f) => f.closed),
      [false, true],
    );
    assert.match(notFound(registry, idle), /was closed after 20 ms/);
    await registry.closeAll();
    assert.match(notFound(registry, busy), /was closed as the server shut down/);
  });
});
