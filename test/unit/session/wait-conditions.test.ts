/**
 * Wait actions' conditions (session/wait-conditions.ts) through waitForCondition, on a real
 * Screen and a fake clock: a pattern that appears later, one that scrolled into history between
 * two looks (each line searched once, none from before the wait), text that goes, the program's
 * exit, and the shell's command finishing. The loop's own timing: wait.test.ts.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { ExpectCondition } from '../../../src/input/actions.js';
import { closeSharedMatchPool } from '../../../src/match/match-pool.js';
import { Screen } from '../../../src/screen/screen.js';
import type { Session } from '../../../src/session/session.js';
import { type WaitOutcome, waitForCondition } from '../../../src/session/wait.js';
import { TerminalError } from '../../../src/shared/errors.js';
import { compileQuery } from '../../../src/shared/text-query.js';
import { FakeClock } from '../../helpers/fakes.js';

const NONCE = 'n0nce';

/** A session of a real 30x3 screen (10 lines of history), on a fake clock. */
function world() {
  const clock = new FakeClock();
  const screen = new Screen({
    cols: 30,
    rows: 3,
    scrollback: 10,
    onReply: () => undefined,
    commandMarkNonce: NONCE,
  });
  const state = { status: 'running' as 'running' | 'exited', hasSentInput: false };
  const listeners = new Set<() => void>();
  screen.subscribe(() => {
    for (const listener of listeners) listener();
  });
  const session = {
    screen,
    get status() {
      return state.status;
    },
    isClosed: false,
    detectsInputWait: false,
    presence: { typists: 0, typedCount: 0 },
    get hasSentInput() {
      return state.hasSentInput;
    },
    inputMarkSeq: 0,
    get parseCount() {
      return screen.parseCount;
    },
    get pendingBytes() {
      return screen.pendingBytes;
    },
    pendingInputBytes: 0,
    isSynchronizedUpdate: () => screen.isSynchronizedUpdate(),
    inputWait: () => undefined,
    othersIdle: () => false,
    confirmInputWait: async () => false,
    isFinal: () => state.status === 'exited',
    closedError: () => new TerminalError('SESSION_CLOSED', 'closed'),
    exitedError: (what: string) => new TerminalError('SESSION_EXITED', `exited: ${what}`),
    subscribe: (listener: () => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  /** Output that has been parsed, at the clock's time. */
  const output = async (text: string) => {
    screen.write(Buffer.from(text));
    await screen.whenParsed();
  };
  /** Starts a wait (timeout 5 s) and records how it ended. */
  const wait = (condition: ExpectCondition) => {
    let outcome: WaitOutcome | undefined;
    let error: Error | undefined;
    const waiting = waitForCondition(
      session as unknown as Session,
      condition,
      { timeoutMs: 5000 },
      clock,
    );
    waiting.then(
      (o) => {
        outcome = o;
      },
      (e: Error) => {
        error = e;
      },
    );
    return { waiting, outcome: () => outcome, error: () => error };
  };
  /** The program exits: listeners hear of it, as a session's do. */
  const exit = () => {
    state.status = 'exited';
    for (const listener of listeners) listener();
  };
  return { clock, screen, state, output, wait, exit };
}

/**
 * Runs the timers due now until the wait has ended, the clock standing still: a pattern is
 * matched in the match worker, which answers in real time, so the outcome is that of this moment.
 */
async function endOf(
  w: ReturnType<typeof world>,
  ended: ReturnType<ReturnType<typeof world>['wait']>,
) {
  const over = ended.waiting.then(
    () => true,
    () => true,
  );
  for (let turn = 0; turn < 2000; turn++) {
    await w.clock.advance(0);
    const done = await Promise.race([
      over,
      new Promise<false>((resolve) => setTimeout(() => resolve(false), 5)),
    ]);
    if (done) return ended.outcome() ?? ended.error();
  }
  throw new Error('the wait did not end');
}

const pattern = (text: string, gone = false): ExpectCondition => ({
  kind: 'pattern',
  query: compileQuery({ text }),
  source: text,
  gone,
});

after(() => closeSharedMatchPool());

describe('waitForCondition', () => {
  it('matches a pattern when it appears, placed on its line, row and column', async () => {
    const w = world();
    await w.output('loading\r\n');
    const ended = w.wait(pattern('ready'));
    await w.clock.advance(300);
    assert.equal(ended.outcome(), undefined);
    await w.output('all ready');
    assert.deepEqual(await endOf(w, ended), {
      reason: 'matched',
      elapsedMs: 300,
      match: { text: 'ready', line: 2, row: 2, column: 5 },
    });
    w.screen.dispose();
  });

  it('finds a line that scrolled into history between two looks', async () => {
    const w = world();
    const ended = w.wait(pattern('needle'));
    await w.clock.advance(100);
    // Off the 3-row screen before the next look.
    await w.output('needle\r\na\r\nb\r\nc\r\nd\r\n');
    assert.deepEqual(await endOf(w, ended), {
      reason: 'matched',
      elapsedMs: 100,
      match: { text: 'needle', line: 1 },
    });
    w.screen.dispose();
  });

  it('matches across rows in the joined screen text, with no one line', async () => {
    const w = world();
    const ended = w.wait({
      kind: 'pattern',
      query: compileQuery({ pattern: 'one\\ntwo' }),
      source: 'one\\ntwo',
      gone: false,
    });
    await w.clock.advance(40);
    await w.output('one\r\ntwo');
    assert.deepEqual(await endOf(w, ended), {
      reason: 'matched',
      elapsedMs: 40,
      match: { text: 'one\ntwo' },
    });
    w.screen.dispose();
  });

  it('does not match history from before the wait began', async () => {
    const w = world();
    await w.output('needle\r\na\r\nb\r\nc\r\nd\r\n');
    assert.ok(w.screen.historyTotal >= 1);
    const ended = w.wait(pattern('needle'));
    await w.clock.advance(5000);
    assert.deepEqual(await endOf(w, ended), { reason: 'timeout', elapsedMs: 5000 });
    w.screen.dispose();
  });

  it('ends a wait for text to go when it is no longer on the screen', async () => {
    const w = world();
    await w.output('Loading...');
    const ended = w.wait(pattern('Loading', true));
    await w.clock.advance(200);
    assert.equal(ended.outcome(), undefined);
    await w.output('\x1b[2K\rDone');
    assert.deepEqual(await endOf(w, ended), { reason: 'gone', elapsedMs: 200 });
    w.screen.dispose();
  });

  it('ends an exit wait at the exit, and fails a pattern wait the exit makes hopeless', async () => {
    const exits = world();
    const exitWait = exits.wait({ kind: 'exit' });
    const hopeless = exits.wait(pattern('never'));
    await exits.clock.advance(150);
    exits.exit();
    assert.deepEqual(await endOf(exits, exitWait), { reason: 'exited', elapsedMs: 150 });
    const error = await endOf(exits, hopeless);
    assert.ok(error instanceof TerminalError, `${error}`);
    assert.equal(error.code, 'SESSION_EXITED');
    assert.match(error.message, /never/);
    exits.screen.dispose();
  });

  it('refuses a command wait with nothing typed and no command running', async () => {
    const w = world();
    await w.output(`\x1b]133;A;aid=${NONCE}\x07$ `);
    await assert.rejects(w.wait({ kind: 'command' }).waiting, (err: unknown) => {
      assert.ok(err instanceof TerminalError);
      assert.match(err.message, /no command to wait for/);
      return true;
    });
    w.screen.dispose();
  });

  it('ends a command wait when the command finishes, with its exit code', async () => {
    const w = world();
    await w.output(`\x1b]133;A;aid=${NONCE}\x07$ \x1b]133;B;aid=${NONCE}\x07`);
    w.state.hasSentInput = true;
    const ended = w.wait({ kind: 'command' });
    await w.clock.advance(50);
    await w.output(`make\r\n\x1b]133;C;aid=${NONCE}\x07built\r\n`);
    await w.clock.advance(250);
    assert.equal(ended.outcome(), undefined, 'running');
    await w.output(`\x1b]133;D;3;aid=${NONCE}\x07`);
    const outcome = (await endOf(w, ended)) as WaitOutcome;
    assert.equal(outcome?.reason, 'finished');
    assert.equal(outcome?.elapsedMs, 300);
    assert.equal(outcome?.command?.exitCode, 3);
    w.screen.dispose();
  });

  it('ends a command wait when the shell exits first, with the output so far', async () => {
    const w = world();
    await w.output(`\x1b]133;A;aid=${NONCE}\x07$ \x1b]133;B;aid=${NONCE}\x07exit\r\n`);
    await w.output(`\x1b]133;C;aid=${NONCE}\x07logout\r\n`);
    const ended = w.wait({ kind: 'command' });
    await w.clock.advance(70);
    w.exit();
    assert.deepEqual(await endOf(w, ended), {
      reason: 'exited',
      elapsedMs: 70,
      command: { fromLine: 2, toLine: 2 },
    });
    w.screen.dispose();
  });
});
