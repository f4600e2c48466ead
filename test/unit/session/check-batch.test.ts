/**
 * The checks made before a batch's first byte, against real sessions (a real program in a PTY):
 * keys the keyboard mode in force cannot encode, mouse events outside the screen or while the
 * program does not track the mouse, a command wait without command marks, a session that has
 * exited or closed. Which reports a mouse action makes is pure.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Action } from '../../../src/input/actions.js';
import { actionAt } from '../../../src/input/actions.js';
import {
  checkActions,
  MOUSE_NOT_ENABLED_ADVICE,
  mouseReports,
  precheckBatch,
} from '../../../src/session/check-batch.js';
import type { LaunchPlan } from '../../../src/session/launch.js';
import type { Session } from '../../../src/session/session.js';
import { createSessionFactory } from '../../../src/session/session-factory.js';
import { DEFAULT_CONFIG } from '../../../src/shared/config.js';
import { TerminalError } from '../../../src/shared/errors.js';
import { silentLogger } from '../../../src/shared/log.js';
import { waitUntil } from '../../helpers/wait.js';

const root = mkdtempSync(join(tmpdir(), 'agent-tty-test-check-batch-'));
after(() => rmSync(root, { recursive: true, force: true }));

const factory = createSessionFactory({ ...DEFAULT_CONFIG, transcriptDir: root }, silentLogger);
let count = 0;

async function sessionOf(script: string, plan: Partial<LaunchPlan> = {}): Promise<Session> {
  return await factory({
    id: `c${++count}`,
    plan: {
      file: '/bin/sh',
      args: ['-c', script],
      cwd: '/',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color' },
      command: script,
      login: false,
      sessionHistory: false,
      ...plan,
    },
    cols: 40,
    rows: 10,
    scrollbackLines: 100,
  });
}

const key = (k: string, mods: { ctrl?: boolean; alt?: boolean; shift?: boolean } = {}): Action => ({
  type: 'key',
  press: { key: k, ctrl: false, alt: false, shift: false, ...mods },
});

type MouseAction = Extract<Action, { type: 'mouse' }>;
const mouse = (extra: Partial<MouseAction> = {}): MouseAction =>
  ({
    type: 'mouse',
    event: 'click',
    row: 1,
    column: 1,
    button: 'left',
    count: 1,
    modifiers: { shift: false, alt: false, ctrl: false },
    ...extra,
  }) as MouseAction;

const commandWait: Action = {
  type: 'expect',
  condition: { kind: 'command' },
  timeoutMs: 1000,
  stopOnInput: false,
};

/** Asserts `run` throws `code` about actions[index]. */
function refuses(run: () => void, code: string, index: number, words?: RegExp): void {
  assert.throws(run, (err: unknown) => {
    assert.ok(err instanceof TerminalError, String(err));
    assert.equal(err.code, code, err.message);
    assert.equal(err.details.actionIndex, index);
    assert.ok(err.message.startsWith(`actions[${index}]: `), err.message);
    if (words) assert.match(err.message, words);
    return true;
  });
}

async function withSession(
  script: string,
  test: (s: Session) => Promise<void> | void,
  plan?: Partial<LaunchPlan>,
) {
  const session = await sessionOf(script, plan);
  try {
    await test(session);
  } finally {
    await session.close();
  }
}

describe('precheckBatch against a real session', () => {
  it('passes keys, text and mouse-free batches the program can take', () =>
    withSession('exec cat', (s) => {
      precheckBatch(s, [
        { type: 'text', text: 'hi' },
        key('Enter'),
        key('c', { ctrl: true }),
        key('Up'),
      ]);
    }));

  it('refuses a key the legacy keyboard cannot encode, naming the action', () =>
    withSession('exec cat', (s) => {
      refuses(
        () => precheckBatch(s, [key('a'), key('Enter', { shift: true })]),
        'INVALID_KEY',
        1,
        /Shift\+Enter/,
      );
    }));

  it('takes that key once the program turns the kitty keyboard protocol on', () =>
    withSession("printf '\\033[>1u'; exec cat", async (s) => {
      await waitUntil(() => s.screen.modes().kittyKeyboardFlags === 1, 'the kitty flags', 5000);
      precheckBatch(s, [key('Enter', { shift: true })]);
    }));

  it('refuses a mouse event while the program does not track the mouse', () =>
    withSession('exec cat', (s) => {
      refuses(
        () => precheckBatch(s, [key('a'), key('b'), mouse()]),
        'MOUSE_NOT_ENABLED',
        2,
        new RegExp(
          `not enabled mouse reporting; ${MOUSE_NOT_ENABLED_ADVICE.slice(0, 30).replace(/[()]/g, '\\$&')}`,
        ),
      );
    }));

  it('takes mouse events once the program tracks the mouse, inside the screen only', () =>
    withSession("printf '\\033[?1000h\\033[?1006h'; exec cat", async (s) => {
      await waitUntil(() => s.screen.modes().mouseTracking === 'normal', 'mouse tracking', 5000);
      precheckBatch(s, [
        mouse({ row: 10, column: 40 }),
        mouse({ event: 'wheel', direction: 'down', count: 3 }),
      ]);
      refuses(
        () => precheckBatch(s, [mouse({ row: 11, column: 1 })]),
        'OUT_OF_BOUNDS',
        0,
        /outside the 40x10 screen/,
      );
      assert.throws(
        () => precheckBatch(s, [key('a'), mouse({ row: 1, column: 41 })]),
        (err: unknown) =>
          err instanceof TerminalError &&
          err.code === 'OUT_OF_BOUNDS' &&
          err.details.cols === 40 &&
          err.details.rows === 10 &&
          err.details.actionIndex === 1,
      );
    }));

  it('checks the size in force: a cell outside before a resize is inside after it', () =>
    withSession("printf '\\033[?1000h\\033[?1006h'; exec cat", async (s) => {
      await waitUntil(() => s.screen.modes().mouseTracking === 'normal', 'mouse tracking', 5000);
      refuses(() => precheckBatch(s, [mouse({ row: 20, column: 60 })]), 'OUT_OF_BOUNDS', 0);
      await s.resize(80, 24);
      precheckBatch(s, [mouse({ row: 20, column: 60 })]);
    }));

  it('refuses a command wait in a session without command marks', () =>
    withSession('exec cat', (s) => {
      assert.equal(s.hasCommandMarks, false);
      refuses(
        () => precheckBatch(s, [key('a'), commandWait]),
        'INVALID_ARGUMENT',
        1,
        /no command marks/,
      );
    }));

  it('takes a command wait in an interactive bash with command marks', () =>
    withSession(
      '',
      (s) => {
        assert.equal(s.hasCommandMarks, true);
        precheckBatch(s, [commandWait]);
      },
      { file: '/bin/bash', args: [], command: null },
    ));

  it('refuses every batch once the program has exited, and once the session is closed', async () => {
    const s = await sessionOf('exit 0');
    await waitUntil(() => s.status === 'exited', 'the exit', 5000);
    assert.throws(
      () => precheckBatch(s, []),
      (err: unknown) => err instanceof TerminalError && err.code === 'SESSION_EXITED',
    );
    await s.close();
    assert.throws(
      () => precheckBatch(s, []),
      (err: unknown) => err instanceof TerminalError && err.code === 'SESSION_CLOSED',
    );
  });

  it('labels actions as the caller numbers them', () =>
    withSession('exec cat', (s) => {
      assert.throws(
        () => checkActions(s, [key('Tab', { ctrl: true })], (i) => actionAt(i + 7, 'steps')),
        (err: unknown) =>
          err instanceof TerminalError &&
          err.message.startsWith('steps[7]: ') &&
          err.details.actionIndex === 7,
      );
    }));
});

describe('mouseReports', () => {
  const at = { row: 3, column: 4 };

  it('makes a press and a release of a click, only a press in X10 tracking', () => {
    assert.deepEqual(
      mouseReports(mouse(at), 'normal').map((r) => r.kind),
      ['press', 'release'],
    );
    assert.deepEqual(
      mouseReports(mouse(at), 'x10').map((r) => r.kind),
      ['press'],
    );
  });

  it('makes one report of a press or a release, whatever the tracking', () => {
    for (const tracking of ['x10', 'normal', 'button', 'any'] as const) {
      assert.deepEqual(
        mouseReports(mouse({ ...at, event: 'press' }), tracking).map((r) => r.kind),
        ['press'],
      );
      assert.deepEqual(
        mouseReports(mouse({ ...at, event: 'release' }), tracking).map((r) => r.kind),
        ['release'],
      );
    }
  });

  it('makes one wheel report per notch', () => {
    const reports = mouseReports(
      mouse({ ...at, event: 'wheel', direction: 'up', count: 5 }),
      'any',
    );
    assert.equal(reports.length, 5);
    for (const r of reports) assert.equal(r.kind, 'wheel');
    assert.equal(reports[0]?.direction, 'up');
    assert.equal(
      mouseReports(mouse({ ...at, event: 'wheel', direction: 'down', count: 1 }), 'any').length,
      1,
    );
  });

  it('carries the cell, the button and the modifiers into each report', () => {
    const [press] = mouseReports(
      mouse({ ...at, button: 'right', modifiers: { shift: true, alt: false, ctrl: true } }),
      'normal',
    );
    assert.deepEqual(press, {
      button: 'right',
      direction: undefined,
      row: 3,
      column: 4,
      shift: true,
      alt: false,
      ctrl: true,
      kind: 'press',
    });
  });
});
