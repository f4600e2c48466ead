import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ScreenGrid } from '../../../src/screen/grid.js';
import {
  buildInfo,
  buildSnapshot,
  type ProgramFacts,
  type ScreenFacts,
  type SessionFacts,
  sessionExitedError,
} from '../../../src/session/session-view.js';
import type { SettleLabel } from '../../../src/shared/contract/snapshot.js';
import { TerminalError } from '../../../src/shared/errors.js';
import { INITIAL_MODES } from '../../../src/shared/modes.js';

const running: ProgramFacts = { status: 'running', exit: undefined, foreground: undefined };

/** The cursor's row is 1-based, as snapshots give it. */
function gridOf(screen: string[], cursorRow = 1, extra: Partial<ScreenGrid> = {}): ScreenGrid {
  return {
    cols: 10,
    rows: screen.length,
    buffer: 'normal',
    screen,
    cursor: { row: cursorRow, column: 0, visible: true },
    styles: [],
    spans: [],
    ...extra,
  };
}

function screenOf(extra: Partial<ScreenFacts> = {}): ScreenFacts {
  return {
    grid: gridOf(['$ ', '', '']),
    modes: INITIAL_MODES,
    title: '',
    quietMs: 1234,
    historyTotal: 0,
    scrollback: undefined,
    waitingForInput: undefined,
    ...extra,
  };
}

describe('buildSnapshot', () => {
  it('gives the fields in the contract order, leaving out what is absent', () => {
    const snapshot = buildSnapshot('quiet', running, screenOf());
    assert.deepEqual(Object.keys(snapshot), [
      'status',
      'settled',
      'settle',
      'cols',
      'rows',
      'buffer',
      'cursor',
      'screen',
      'historyTotal',
    ]);
  });

  it('gives every optional field, in order, when all are present', () => {
    const grid = gridOf(['ab', ''], 1, {
      styles: [{ bold: true }] as ScreenGrid['styles'],
      spans: [[1, 1, 2, 0]] as ScreenGrid['spans'],
    });
    const snapshot = buildSnapshot(
      'none',
      {
        status: 'exited',
        exit: { exitCode: 3, signal: null },
        foreground: { pid: 42, command: 'vim' },
      },
      screenOf({
        grid,
        modes: { ...INITIAL_MODES, mouseTracking: 'normal', mouseEncoding: 'sgr' },
        title: 'T',
        waitingForInput: true,
        historyTotal: 7,
        scrollback: { lines: ['old'], availableLines: 1 },
      }),
    );
    assert.deepEqual(Object.keys(snapshot), [
      'status',
      'exitCode',
      'settled',
      'settle',
      'waitingForInput',
      'foreground',
      'title',
      'cols',
      'rows',
      'buffer',
      'cursor',
      'mouse',
      'screen',
      'styles',
      'spans',
      'historyTotal',
      'scrollback',
    ]);
    assert.deepEqual(snapshot.mouse, { tracking: 'normal', encoding: 'sgr' });
    assert.deepEqual(snapshot.foreground, { pid: 42, command: 'vim' });
    assert.equal(snapshot.title, 'T');
    assert.equal(snapshot.historyTotal, 7);
    assert.deepEqual(snapshot.scrollback, { lines: ['old'], availableLines: 1 });
  });

  it('says settled for quiet, input and exited, not for timeout, starting or none', () => {
    const settledOf = (label: SettleLabel) => {
      const s = buildSnapshot(label, running, screenOf());
      return [s.settle, s.settled];
    };
    assert.deepEqual(
      (['quiet', 'input', 'exited', 'timeout', 'starting', 'none'] as const).map(settledOf),
      [
        ['quiet', true],
        ['input', true],
        ['exited', true],
        ['timeout', false],
        ['starting', false],
        ['none', false],
      ],
    );
  });

  it('gives quietMs only when no settle wait ran', () => {
    assert.equal(buildSnapshot('none', running, screenOf({ quietMs: 250 })).quietMs, 250);
    for (const label of ['quiet', 'input', 'timeout', 'starting'] as const) {
      assert.equal('quietMs' in buildSnapshot(label, running, screenOf()), false, label);
    }
  });

  it("calls an exited program's screen final whatever wait ran, except a settle that was seen", () => {
    const exited: ProgramFacts = {
      status: 'exited',
      exit: { exitCode: 0, signal: null },
      foreground: undefined,
    };
    for (const label of ['none', 'timeout', 'starting'] as const) {
      const s = buildSnapshot(label, exited, screenOf());
      assert.equal(s.settle, 'exited', label);
      assert.equal(s.settled, true, label);
      assert.equal('quietMs' in s, false, label);
    }
    assert.equal(buildSnapshot('quiet', exited, screenOf()).settle, 'quiet');
    assert.equal(buildSnapshot('input', exited, screenOf()).settle, 'input');
  });

  it('cuts trailing blank rows, but never above the (1-based) cursor row', () => {
    const rows = ['one', '', 'three', '', '', ''];
    const cut = (cursorRow: number) =>
      buildSnapshot('quiet', running, screenOf({ grid: gridOf(rows, cursorRow) })).screen;
    assert.deepEqual(cut(1), ['one', '', 'three']);
    assert.deepEqual(cut(3), ['one', '', 'three']);
    assert.deepEqual(cut(5), ['one', '', 'three', '', '']);
    assert.deepEqual(cut(6), rows);
    const blank = buildSnapshot('quiet', running, screenOf({ grid: gridOf(['', '', ''], 1) }));
    assert.deepEqual(blank.screen, ['']);
    const lower = buildSnapshot('quiet', running, screenOf({ grid: gridOf(['', '', ''], 2) }));
    assert.deepEqual(lower.screen, ['', '']);
  });

  it('does not change the grid it was given', () => {
    const grid = gridOf(['a', '', ''], 1);
    buildSnapshot('quiet', running, screenOf({ grid }));
    assert.deepEqual(grid.screen, ['a', '', '']);
  });

  it('gives styles and spans only when there are spans', () => {
    const plain = buildSnapshot('quiet', running, screenOf());
    assert.equal('styles' in plain, false);
    assert.equal('spans' in plain, false);
    const styled = buildSnapshot(
      'quiet',
      running,
      screenOf({
        grid: gridOf(['ab'], 1, {
          styles: [{ bold: true }] as ScreenGrid['styles'],
          spans: [[1, 1, 2, 0]] as ScreenGrid['spans'],
        }),
      }),
    );
    assert.deepEqual(styled.styles, [{ bold: true }]);
    assert.deepEqual(styled.spans, [[1, 1, 2, 0]]);
  });

  it('gives mouse only while the program tracks it', () => {
    assert.equal('mouse' in buildSnapshot('quiet', running, screenOf()), false);
    const modes = { ...INITIAL_MODES, mouseTracking: 'x10' as const };
    assert.deepEqual(buildSnapshot('quiet', running, screenOf({ modes })).mouse, {
      tracking: 'x10',
      encoding: 'default',
    });
  });

  it('gives waitingForInput when it is known, false included', () => {
    assert.equal('waitingForInput' in buildSnapshot('quiet', running, screenOf()), false);
    const s = buildSnapshot('quiet', running, screenOf({ waitingForInput: false }));
    assert.equal(s.waitingForInput, false);
  });

  it('gives exitCode for an exit, signal for a kill, and neither when the code is unknown', () => {
    const exitOf = (exitCode: number | null, signal: string | null) => {
      const s = buildSnapshot(
        'none',
        { status: 'exited', exit: { exitCode, signal }, foreground: undefined },
        screenOf(),
      );
      return { exitCode: s.exitCode, signal: s.signal, keys: Object.keys(s).slice(0, 2) };
    };
    assert.deepEqual(exitOf(2, null), {
      exitCode: 2,
      signal: undefined,
      keys: ['status', 'exitCode'],
    });
    assert.deepEqual(exitOf(0, null), {
      exitCode: 0,
      signal: undefined,
      keys: ['status', 'exitCode'],
    });
    assert.deepEqual(exitOf(null, 'SIGTERM'), {
      exitCode: undefined,
      signal: 'SIGTERM',
      keys: ['status', 'signal'],
    });
    assert.deepEqual(exitOf(137, 'SIGKILL'), {
      exitCode: undefined,
      signal: 'SIGKILL',
      keys: ['status', 'signal'],
    });
    assert.deepEqual(exitOf(null, null), {
      exitCode: undefined,
      signal: undefined,
      keys: ['status', 'settled'],
    });
  });
});

const session: SessionFacts = {
  id: 's1',
  command: 'bash',
  cwd: '/tmp',
  pid: 1234,
  startedAt: new Date('2026-01-02T03:04:05.678Z'),
  screen: { cols: 80, rows: 24 },
  recording: undefined,
  recordingError: undefined,
};

describe('buildInfo', () => {
  it('gives the fields in order, leaving out what is absent', () => {
    const info = buildInfo(session, running);
    assert.deepEqual(info, {
      sessionId: 's1',
      command: 'bash',
      cwd: '/tmp',
      cols: 80,
      rows: 24,
      status: 'running',
      pid: 1234,
      startedAt: '2026-01-02T03:04:05.678Z',
    });
    assert.deepEqual(Object.keys(info), [
      'sessionId',
      'command',
      'cwd',
      'cols',
      'rows',
      'status',
      'pid',
      'startedAt',
    ]);
  });

  it('adds the exit, foreground and recording fields where they belong', () => {
    const info = buildInfo(
      { ...session, command: null, recording: '/r/s1.cast', recordingError: 'disk full' },
      {
        status: 'exited',
        exit: { exitCode: null, signal: 'SIGHUP' },
        foreground: { pid: 9, command: 'less' },
      },
    );
    assert.deepEqual(Object.keys(info), [
      'sessionId',
      'command',
      'cwd',
      'cols',
      'rows',
      'status',
      'signal',
      'pid',
      'foreground',
      'startedAt',
      'recording',
      'recordingError',
    ]);
    assert.equal(info.command, null);
    assert.equal(info.signal, 'SIGHUP');
    assert.equal(info.recording, '/r/s1.cast');
    assert.equal(info.recordingError, 'disk full');
    const code = buildInfo(session, {
      status: 'exited',
      exit: { exitCode: 1, signal: null },
      foreground: undefined,
    });
    assert.equal(code.exitCode, 1);
    assert.equal('signal' in code, false);
  });
});

describe('sessionExitedError', () => {
  const info = buildInfo(session, running);

  it('is SESSION_EXITED naming the session, with its info as details', () => {
    const error = sessionExitedError(info, undefined);
    assert.ok(error instanceof TerminalError);
    assert.equal(error.code, 'SESSION_EXITED');
    assert.equal(
      error.message,
      'session "s1" has exited; read its final screen with terminal_snapshot, close it with terminal_close, or start a new one with terminal_start',
    );
    assert.deepEqual(error.details, info);
    assert.notEqual(error.details, info, 'details are a copy');
  });

  it('says how the program ended and what the wait was for', () => {
    assert.match(
      sessionExitedError(info, { exitCode: 2, signal: null }).message,
      /^session "s1" has exited \(exit code 2\); /,
    );
    assert.match(
      sessionExitedError(info, { exitCode: null, signal: 'SIGTERM' }, 'text "done"').message,
      /^session "s1" has exited \(killed by SIGTERM\) while waiting for text "done"; read/,
    );
    assert.match(
      sessionExitedError(info, undefined, 'the screen to settle').message,
      /^session "s1" has exited while waiting for the screen to settle; /,
    );
  });
});
