import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  formatProgress,
  formatSessionList,
  formatSnapshot,
  settleText,
} from '../../../src/render/format.js';
import { snapshotOf } from '../../helpers/fakes.js';

const blankRows = (n: number) => Array.from({ length: n }, () => '');

describe('formatSnapshot: screen rows', () => {
  it('shows a run of blank rows as one line with its first and last row', () => {
    const s = snapshotOf(['hello', ...blankRows(39)], {
      status: 'exited',
      exitCode: 0,
      settle: 'exited',
      cursor: { row: 2, column: 1, visible: true },
    });
    assert.equal(
      formatSnapshot('t1', s),
      [
        'session t1 · exited (exit code 0) · settled',
        'screen (20x40, normal buffer), cursor row 2 column 1:',
        ' 1│hello',
        '2-40│ (blank)',
      ].join('\n'),
    );
  });

  it('keeps a single blank row, and collapses runs between text rows', () => {
    const s = snapshotOf(['$ ls', '', 'a', '', '', '', 'b', '', '', '', '']);
    assert.equal(
      formatSnapshot('t2', s),
      [
        'session t2 · running · settled',
        'screen (20x11, normal buffer), cursor row 1 column 1:',
        ' 1│$ ls',
        ' 2│',
        ' 3│a',
        '4-6│ (blank)',
        ' 7│b',
        '8-11│ (blank)',
      ].join('\n'),
    );
  });

  it('does not collapse rows of spaces: only empty rows are blank', () => {
    const s = snapshotOf(['  ', '  ', '']);
    assert.equal(
      formatSnapshot('t3', s).split('\n').slice(2).join('\n'),
      ['1│  ', '2│  ', '3│'].join('\n'),
    );
  });

  it('shows a wholly blank screen as one line', () => {
    const s = snapshotOf(blankRows(5));
    assert.equal(formatSnapshot('t1', s).split('\n')[2], '1-5│ (blank)');
  });
});

describe('formatSnapshot: how the screen was observed', () => {
  it('says settled after a quiet, input or exit observation', () => {
    for (const settle of ['quiet', 'input', 'exited'] as const) {
      assert.equal(settleText({ settled: true, settle }), 'settled');
    }
  });

  it('says still changing only when a settle wait reached its deadline', () => {
    const s = snapshotOf(['42'], { settled: false, settle: 'timeout' });
    assert.equal(
      formatSnapshot('t1', s).split('\n')[0],
      'session t1 · running · still changing at the deadline',
    );
  });

  it('says how long an unobserved screen has been quiet', () => {
    const s = snapshotOf(['>>> '], {
      settled: false,
      settle: 'none',
      quietMs: 3250,
      waitingForInput: true,
    });
    assert.equal(
      formatSnapshot('t4', s).split('\n')[0],
      'session t4 · running · quiet for 3.2 s · waiting for input',
    );
    assert.equal(
      settleText({ settled: false, settle: 'none', quietMs: 0 }),
      'output still arriving',
    );
    assert.equal(settleText({ settled: false, settle: 'none' }), 'not observed');
  });
});

describe('formatSnapshot: history and scrollback use history line numbers', () => {
  it('says what was new, dropped and returned, and where to continue', () => {
    const s = snapshotOf(['4962', ''], {
      historyTotal: 4923,
      history: {
        since: 2923,
        lines: ['2924', '2925'],
        total: 4923,
        missedLines: 2923,
        nextSince: 2925,
      },
    });
    assert.deepEqual(formatSnapshot('t1', s).split('\n').slice(1, 4), [
      'history after line 0: 4923 new lines; lines 1-2923 dropped before they were read; lines 2924-2925 below; 1998 more lines: continue with historySince 2925:',
      '2924│2924',
      '2925│2925',
    ]);
  });

  it('numbers an incremental read from the line after since', () => {
    const s = snapshotOf(['x'], {
      historyTotal: 12,
      history: { since: 9, lines: ['l10', 'l11', 'l12'], total: 12, missedLines: 0 },
    });
    assert.deepEqual(formatSnapshot('t1', s).split('\n').slice(1, 5), [
      'history after line 9: 3 new lines; lines 10-12 below; continue with historySince 12:',
      '10│l10',
      '11│l11',
      '12│l12',
    ]);
  });

  it('says when nothing is new', () => {
    const s = snapshotOf(['x'], {
      historyTotal: 12,
      history: { since: 12, lines: [], total: 12, missedLines: 0 },
    });
    assert.equal(
      formatSnapshot('t1', s).split('\n')[1],
      'history after line 12: 0 new lines; continue with historySince 12',
    );
  });

  it('numbers scrollback by history line, ending at historyTotal', () => {
    const s = snapshotOf(['line27', ''], {
      historyTotal: 26,
      scrollback: { lines: ['line25', 'line26'], availableLines: 26 },
    });
    assert.deepEqual(formatSnapshot('t1', s).split('\n').slice(1), [
      'scrollback: lines 25-26 of history, the last 2 of 26 held; lines 1-24 before them: read with historySince:',
      '25│line25',
      '26│line26',
      'screen (20x2, normal buffer, row 1 is line 27), cursor row 1 column 1:',
      '1│line27',
      '2│',
    ]);
  });

  it('says nothing of earlier lines when the scrollback starts at line 1', () => {
    const s = snapshotOf(['x'], {
      historyTotal: 2,
      scrollback: { lines: ['a', 'b'], availableLines: 2 },
    });
    assert.equal(
      formatSnapshot('t1', s).split('\n')[1],
      'scrollback: lines 1-2 of history, the last 2 of 2 held:',
    );
  });

  it('says when there is no scrollback', () => {
    const s = snapshotOf(['x'], { scrollback: { lines: [], availableLines: 0 } });
    assert.equal(formatSnapshot('t1', s).split('\n')[1], 'scrollback: no history lines');
  });
});

describe('formatSnapshot: matches in the one line numbering', () => {
  it('places history matches by line and screen matches by row and line', () => {
    const s = snapshotOf(['ok', 'ERROR again'], {
      historyTotal: 5000,
      matches: [
        { line: 1234, column: 1, endColumn: 5, text: 'ERROR' },
        { line: 5002, row: 2, column: 1, endColumn: 5, text: 'ERROR' },
      ],
    });
    assert.equal(
      formatSnapshot('t1', s).split('\n').at(-1),
      'matches: line 1234:1-5 "ERROR"; row 2 (line 5002):1-5 "ERROR"',
    );
  });

  it('says when there are more matches, and where a search goes on', () => {
    const capped = (last: { line: number; row?: number }) =>
      formatSnapshot(
        't1',
        snapshotOf(['x'], {
          historyTotal: 90,
          matches: [{ ...last, column: 2, endColumn: 2, text: 'x' }],
          matchesTruncated: true,
        }),
      )
        .split('\n')
        .at(-1);
    assert.equal(
      capped({ line: 77 }),
      'matches (the first 1; there are more, search on after it with find.history 77): line 77:2-2 "x"',
    );
    assert.equal(
      capped({ line: 91, row: 1 }),
      'matches (the first 1; there are more, narrow the search): row 1 (line 91):2-2 "x"',
    );
  });

  it('says when nothing matched', () => {
    const s = snapshotOf(['x'], { matches: [] });
    assert.equal(formatSnapshot('t1', s).split('\n').at(-1), 'matches: none');
  });
});

describe('formatProgress: where a wait matched', () => {
  const progress = (match: { text: string; line?: number; row?: number; column?: number }) =>
    formatProgress({
      actionsCompleted: 1,
      inputSent: false,
      waits: [{ actionIndex: 0, reason: 'matched', elapsedMs: 12, match }],
    }).split('\n')[1];

  it('gives the row and column on the screen, and the line once it differs from the row', () => {
    assert.equal(
      progress({ text: 'ok', line: 3, row: 3, column: 5 }),
      'wait #0: matched "ok" at row 3 column 5 after 12 ms',
    );
    assert.equal(
      progress({ text: 'ok', line: 5003, row: 3, column: 5 }),
      'wait #0: matched "ok" at row 3 column 5 (line 5003) after 12 ms',
    );
  });

  it('gives the line of a match in history, and nothing for one spanning rows', () => {
    assert.equal(
      progress({ text: 'ERROR', line: 1234 }),
      'wait #0: matched "ERROR" at line 1234 after 12 ms',
    );
    assert.equal(progress({ text: 'a\nb' }), 'wait #0: matched "a\\nb" after 12 ms');
  });

  it('says how long a wait took in words once it passes a second', () => {
    const line = formatProgress({
      actionsCompleted: 1,
      inputSent: false,
      waits: [{ actionIndex: 0, reason: 'matched', elapsedMs: 5321, match: { text: 'ok' } }],
    }).split('\n')[1];
    assert.equal(line, 'wait #0: matched "ok" after 5.3 s');
  });
});

describe('formatSessionList: who started a session', () => {
  const session = (id: string, client?: string) => ({
    sessionId: id,
    command: 'cat',
    cwd: '/tmp',
    cols: 80,
    rows: 24,
    status: 'running' as const,
    pid: 42,
    startedAt: '2026-01-01T00:00:00.000Z',
    ...(client === undefined ? {} : { client }),
  });

  it('names the client only of sessions another client started', () => {
    const lines = formatSessionList(
      [session('t1', 'claude-code'), session('t2', 'codex'), session('t3')],
      'codex',
    ).split('\n');
    assert.match(lines[0] ?? '', /· started by "claude-code"/);
    assert.doesNotMatch(lines[1] ?? '', /started by/);
    assert.doesNotMatch(lines[2] ?? '', /started by/);
  });

  it('names every starter to a caller that gave no name', () => {
    assert.match(formatSessionList([session('t1', 'codex')]), /started by "codex"/);
  });
});
