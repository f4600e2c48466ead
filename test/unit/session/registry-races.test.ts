/**
 * Races of the session registry found by the registry model test, each as a small
 * reproducer with the behaviour it should have: a close racing a close, and a start racing
 * closeAll. The model itself is test/property/registry.model.test.ts.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { SessionRegistry } from '../../../src/session/registry.js';
import type { Session } from '../../../src/session/session.js';
import { codeOf } from '../../helpers/registry-checks.js';
import { PLAN } from '../../helpers/registry-world.js';

/** A session whose close ends when the test says so. */
function closeOnCue(id: string, pid: number) {
  const state = { closeCalls: 0, closeFinished: false, finishClose: () => {} };
  const session = {
    id,
    pid,
    info: () => ({ sessionId: id, pid }),
    close: () => {
      state.closeCalls++;
      return new Promise<void>((resolve) => {
        state.finishClose = () => {
          state.closeFinished = true;
          resolve();
        };
      });
    },
  };
  return { session: session as unknown as Session, state };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

it('a close racing an earlier close of the same session returns once that session is closed', {}, async () => {
  const { session, state } = closeOnCue('t1', 4242);
  const registry = new SessionRegistry({ maxSessions: 1, scrollbackLines: 0 }, () => session);
  await registry.start({ plan: PLAN, cols: 80, rows: 24 });
  const first = registry.close('t1');
  const second = registry.close('t1').then((closed) => ({ closed, done: state.closeFinished }));
  await turn();
  state.finishClose();
  assert.equal(await first, true);
  assert.deepEqual(await second, { closed: false, done: true });
});

it('closeAll waits for a start in flight, and pids() lists its session until it is closed', {}, async () => {
  const { session, state } = closeOnCue('t1', 4343);
  let spawn: (s: Session) => void = () => {};
  const registry = new SessionRegistry({ maxSessions: 1, scrollbackLines: 0 }, () => {
    return new Promise<Session>((resolve) => {
      spawn = resolve;
    });
  });
  const starting = registry.start({ plan: PLAN, cols: 80, rows: 24 });
  const all = registry.closeAll().then(() => state.closeFinished);
  await turn();
  spawn(session);
  await turn();
  assert.equal(state.closeCalls, 1, 'the late session is being closed');
  assert.deepEqual(registry.pids(), [4343], 'its pid is there for the last-resort kill');
  state.finishClose();
  await assert.rejects(starting, (err) => codeOf(err) === 'SESSION_CLOSED');
  assert.equal(await all, true, 'closeAll resolved only after the late session closed');
});
