import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  composeFrame,
  type FrameLayout,
  inputModeSequence,
  RESTORE_TERMINAL,
  type ScreenView,
} from '../../../src/attach/frame.js';
import { Screen } from '../../../src/screen/screen.js';
import { INITIAL_MODES } from '../../../src/shared/modes.js';

const MODES = INITIAL_MODES;

function view(rows: string[], extra: Partial<ScreenView> = {}): ScreenView {
  return {
    cols: 20,
    rows: rows.length,
    rowSequences: rows,
    cursor: { row: 0, column: 0, visible: true },
    modes: MODES,
    ...extra,
  };
}

const CSI = '\x1b[';

const LAYOUT: FrameLayout = {
  cols: 20,
  rows: 3,
  status: ' status ',
  detachHint: 'Ctrl-\\ detaches.',
};

/** Renders frames into an emulator the way a watcher's terminal would. */
async function render(cols: number, rows: number, ...frames: string[]) {
  const screen = new Screen({ cols, rows, scrollback: 0, onReply: () => {} });
  for (const frame of frames) screen.write(Buffer.from(frame, 'utf8'));
  await screen.whenParsed();
  const grid = screen.grid();
  const modes = screen.modes();
  screen.dispose();
  return { grid, modes };
}

/** A source screen after `output`, its grid, and the frame that draws it on a cols x rows watcher. */
async function drawn(
  size: { cols: number; rows: number },
  output: string,
  watcher: { cols: number; rows: number },
) {
  const source = new Screen({ ...size, scrollback: 0, onReply: () => {} });
  source.write(Buffer.from(output));
  await source.whenParsed();
  const rows = source.serializeRows();
  const want = source.grid();
  source.dispose();
  const { data } = composeFrame(
    {
      ...size,
      rowSequences: rows,
      cursor: { row: want.cursor.row - 1, column: want.cursor.column - 1, visible: true },
      modes: MODES,
    },
    { ...LAYOUT, ...watcher },
    undefined,
  );
  const { grid } = await render(watcher.cols, watcher.rows, data);
  return { rows, want, grid };
}

describe('composeFrame', () => {
  it('draws every row first, then only the rows that changed', () => {
    const first = composeFrame(view(['a', 'b', 'c']), LAYOUT, undefined);
    assert.ok(first.data.includes(`${CSI}1;1H${CSI}0m${CSI}2Ka`));
    assert.ok(first.data.includes(`${CSI}3;1H${CSI}0m${CSI}2Kc`));
    const second = composeFrame(view(['a', 'B', 'c']), LAYOUT, first.state);
    assert.ok(second.data.includes(`${CSI}2;1H${CSI}0m${CSI}2KB`));
    assert.ok(!second.data.includes(`${CSI}1;1H${CSI}0m`));
    assert.ok(!second.data.includes(`${CSI}3;1H`));
    assert.equal(composeFrame(view(['a', 'B', 'c']), LAYOUT, second.state).data, '');
  });

  it('moves only the cursor when only the cursor moved', () => {
    const first = composeFrame(view(['a', 'b', 'c']), LAYOUT, undefined);
    const moved = composeFrame(
      view(['a', 'b', 'c'], { cursor: { row: 2, column: 5, visible: false } }),
      LAYOUT,
      first.state,
    );
    assert.equal(moved.data, '\x1b[3;6H\x1b[?25l');
  });

  it('is one synchronized update with the cursor hidden while drawing', () => {
    const { data } = composeFrame(view(['a']), LAYOUT, undefined);
    assert.ok(data.startsWith('\x1b[?2026h\x1b[?25l'));
    assert.ok(data.endsWith('\x1b[?2026l'));
  });

  it('redraws everything when the watcher is resized', () => {
    const first = composeFrame(view(['a', 'b', 'c']), LAYOUT, undefined);
    const resized = composeFrame(view(['a', 'b', 'c']), { ...LAYOUT, cols: 30 }, first.state);
    assert.ok(resized.data.includes(`${CSI}2J`));
    assert.ok(resized.data.includes(`${CSI}1;1H${CSI}0m${CSI}2Ka`));
  });

  it('shows a status line below the screen when the terminal has a row to spare', async () => {
    const layout = { ...LAYOUT, rows: 4 };
    const { data } = composeFrame(view(['one', 'two', 'three']), layout, undefined);
    const { grid } = await render(20, 4, data);
    assert.deepEqual(grid.screen, ['one', 'two', 'three', ' status ']);
  });

  it('cuts a status line wider than the terminal at its last column, never scrolling the picture', async () => {
    // Wide characters count one each in the line's length but take two columns.
    const layout = { ...LAYOUT, rows: 4, status: ` ${'界'.repeat(15)} ` };
    const { data } = composeFrame(view(['one', 'two', 'three']), layout, undefined);
    const { grid } = await render(20, 4, data);
    assert.deepEqual(grid.screen.slice(0, 3), ['one', 'two', 'three']);
    assert.match(grid.screen[3] ?? '', /^ 界界界/);
  });

  it('shows a terminal smaller than the session the line with the cursor, and redraws only it', async () => {
    const small = { ...LAYOUT, cols: 30, rows: 10 };
    const at = (text: string, column: number) =>
      view(['', '', ''], {
        cols: 60,
        cursor: { row: 2, column, visible: true },
        cursorLine: { text, firstColumn: column - 29 },
      });
    const first = composeFrame(at('..... password:', 44), small, undefined);
    const { grid } = await render(30, 10, first.data);
    const label = grid.screen.indexOf('the line with the cursor (row');
    assert.ok(label > 0, grid.screen.join('\n'));
    assert.equal(grid.screen[label + 1], '..... password:');
    // 1-based, as grids give it: the cursor's column 44 less the line's first column 15, plus 1.
    assert.deepEqual(grid.cursor, { row: label + 2, column: 30, visible: true });
    const typed = composeFrame(at('..... password: x', 45), small, first.state);
    assert.doesNotMatch(typed.data, /2J|this session is/, 'only the line is redrawn');
    const after = await render(30, 10, first.data, typed.data);
    assert.equal(after.grid.screen[label + 1], '..... password: x');
  });

  it('tells a terminal smaller than the session how large it must be, and draws no row', async () => {
    const small = { ...LAYOUT, cols: 40, rows: 2 };
    const { data } = composeFrame(
      view(['x'.repeat(20), 'y', 'z']),
      { ...small, cols: 19 },
      undefined,
    );
    assert.doesNotMatch(data, /xxxx/);
    const { grid } = await render(19, 2, data);
    assert.match(grid.screen.join(' '), /this session is 20x3/);
    assert.equal(grid.cursor.visible, false);
  });

  it('tells a terminal that has not reported its size so, line after line, with the line with the cursor', async () => {
    const unsized = { ...LAYOUT, cols: 0, rows: 0 };
    const at = (before: string, after: string, visible = true) =>
      view(['', '', ''], {
        cols: 60,
        cursor: { row: 2, column: [...before].length, visible },
        cursorRow: { before, after },
      });
    const first = composeFrame(at('name? ', ''), unsized, undefined);
    assert.doesNotMatch(first.data, /\[\d+;\d+H/, 'no place on a screen of unknown size');
    // Drawn here on a 40-column terminal: it wraps the notice where it must.
    const { grid } = await render(40, 20, first.data);
    assert.match(first.data, /this terminal has not reported its size \(it says 0x0\)/);
    assert.match(first.data, /what you type still reaches the program\. Ctrl-\\ detaches\./);
    assert.match(grid.screen[0] ?? '', /^agent-tty: this terminal has not/, 'from the top');
    const label = grid.screen.indexOf('the line with the cursor (row 3 of 3):');
    assert.ok(label > 0, grid.screen.join('\n'));
    assert.equal(grid.screen[label + 1], 'name?');
    assert.deepEqual(grid.cursor, { row: label + 2, column: 7, visible: true });
    assert.equal(composeFrame(at('name? ', ''), unsized, first.state).data, '', 'nothing changed');
    // The cursor inside the line: put back where it is, before the rest of the line.
    const inside = composeFrame(at('name? a', 'da', false), unsized, first.state);
    const after = await render(40, 20, first.data, inside.data);
    assert.equal(after.grid.screen[label + 1], 'name? ada');
    assert.deepEqual(after.grid.cursor, { row: label + 2, column: 8, visible: false });
    // Once the size comes, everything is drawn for it.
    const sized = composeFrame(at('name? ada', ''), { ...LAYOUT, cols: 60, rows: 5 }, inside.state);
    assert.ok(sized.data.includes(`${CSI}2J`));
    assert.doesNotMatch(sized.data, /has not reported/);
  });

  it('draws a wrapped row exactly on a wider terminal', async () => {
    const { want, grid } = await drawn(
      { cols: 10, rows: 3 },
      '0123456789abcdef\x1b[31mred\x1b[0m',
      { cols: 30, rows: 3 },
    );
    assert.deepEqual(grid.screen, ['0123456789', 'abcdefred', '']);
    assert.deepEqual(grid.spans, want.spans);
    assert.deepEqual(grid.cursor, want.cursor);
  });
});

describe('input modes', () => {
  it('puts the watcher in the program keyboard and mouse modes, and RESTORE_TERMINAL takes them back', async () => {
    const on = inputModeSequence({
      ...MODES,
      applicationCursorKeys: true,
      applicationKeypad: true,
      bracketedPaste: true,
      focusEvents: true,
      mouseTracking: 'button',
      mouseEncoding: 'sgr',
    });
    const { modes } = await render(10, 2, on);
    assert.equal(modes.applicationCursorKeys, true);
    assert.equal(modes.applicationKeypad, true);
    assert.equal(modes.bracketedPaste, true);
    assert.equal(modes.focusEvents, true);
    assert.equal(modes.mouseTracking, 'button');
    assert.equal(modes.mouseEncoding, 'sgr');
    const { modes: after } = await render(10, 2, on, RESTORE_TERMINAL);
    assert.deepEqual(
      {
        applicationCursorKeys: after.applicationCursorKeys,
        applicationKeypad: after.applicationKeypad,
        bracketedPaste: after.bracketedPaste,
        focusEvents: after.focusEvents,
        mouseTracking: after.mouseTracking,
        mouseEncoding: after.mouseEncoding,
        cursorVisible: after.cursorVisible,
      },
      {
        applicationCursorKeys: false,
        applicationKeypad: false,
        bracketedPaste: false,
        focusEvents: false,
        mouseTracking: 'none',
        mouseEncoding: 'default',
        cursorVisible: true,
      },
    );
  });

  it('sends the modes only when they change', () => {
    const first = composeFrame(view(['a']), LAYOUT, undefined);
    const same = composeFrame(view(['b']), LAYOUT, first.state);
    assert.doesNotMatch(same.data, /\?2004/);
    const changed = composeFrame(
      view(['b'], { modes: { ...MODES, bracketedPaste: true } }),
      LAYOUT,
      same.state,
    );
    assert.ok(changed.data.includes(`${CSI}?2004h`));
  });
});

describe('serializeRows', () => {
  it('draws the alternate screen row by row with its styles', async () => {
    const { rows, want, grid } = await drawn(
      { cols: 12, rows: 3 },
      '\x1b[?1049h\x1b[H\x1b[1;32mgreen\x1b[0m\r\n宽 wide',
      { cols: 12, rows: 3 },
    );
    assert.equal(rows.length, 3);
    assert.ok(rows[0]?.includes(`${CSI}0;1;32m`), 'styled');
    assert.deepEqual(grid.screen, want.screen);
    assert.deepEqual(grid.spans, want.spans);
    assert.deepEqual(grid.styles, want.styles);
  });
});
