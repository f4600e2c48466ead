/**
 * Frames: what a watcher's terminal is sent to show a session's screen. Pure. A frame redraws
 * only the rows that changed since the last frame this watcher got, then puts the cursor where
 * the program's is and sets the keyboard and mouse modes the program asked for, so what the person
 * types is encoded as the program expects. Each row is drawn from its first column with absolute
 * positioning, so a terminal larger than the session shows the screen exactly in its top-left
 * corner (with a status line below it when there is a row to spare); a smaller one is told, in
 * words, how large it must be, and shown the line the cursor is on; so is one that has not
 * reported its size (0x0), drawn line after line since where its lines wrap is not known. A frame
 * is one synchronized update (DEC mode 2026): terminals that know it show it at once.
 */
import {
  INITIAL_MODES,
  type MouseEncoding,
  type MouseTracking,
  type TerminalModes,
} from '../shared/modes.js';

const ESC = '\x1b';
const CSI = `${ESC}[`;

/** What a frame is drawn from: the session's screen now. */
export interface ScreenView {
  readonly cols: number;
  readonly rows: number;
  /** Each row as the sequences that draw it from the default style at its first column. */
  readonly rowSequences: readonly string[];
  /** 0-based. */
  readonly cursor: { readonly row: number; readonly column: number; readonly visible: boolean };
  readonly modes: TerminalModes;
  /**
   * For a terminal smaller than the session: the cursor's row as plain text whose characters
   * take the cells they take on the screen, cut to the terminal's width from cell column
   * `firstColumn` (0-based) so that it holds the cursor.
   */
  readonly cursorLine?: { readonly text: string; readonly firstColumn: number };
  /**
   * For a terminal that has not reported its size: the cursor's whole row as plain text (as
   * `cursorLine`), the cells before the cursor and those from it on, trailing blanks dropped.
   */
  readonly cursorRow?: { readonly before: string; readonly after: string };
}

/** What the watcher's terminal shows after a frame: the next frame draws the difference. */
export interface FrameState {
  readonly layout: string;
  readonly rows: readonly string[];
  readonly inputModes: string;
  readonly cursor: string;
}

export interface FrameLayout {
  /** The watcher terminal's size; 0 in either: not reported yet (isSizeUnknown). */
  readonly cols: number;
  readonly rows: number;
  /** One line about the attachment, shown below the screen when there is room. */
  readonly status: string;
  /** How to detach, for the too-small message. */
  readonly detachHint: string;
}

const MOUSE_TRACKING: Record<MouseTracking, string> = {
  none: '',
  x10: '9',
  normal: '1000',
  button: '1002',
  any: '1003',
};
const MOUSE_ENCODING: Record<MouseEncoding, string> = {
  default: '',
  utf8: '1005',
  sgr: '1006',
  urxvt: '1015',
  'sgr-pixels': '1016',
};

/** The modes that change what the watcher's keyboard and mouse send. */
export function inputModeSequence(modes: TerminalModes): string {
  const set = (on: boolean, mode: string) => `${CSI}?${mode}${on ? 'h' : 'l'}`;
  let out = set(modes.applicationCursorKeys, '1');
  out += modes.applicationKeypad ? `${ESC}=` : `${ESC}>`;
  out += set(modes.bracketedPaste, '2004');
  out += set(modes.focusEvents, '1004');
  out += `${CSI}?9l${CSI}?1000l${CSI}?1002l${CSI}?1003l`;
  out += `${CSI}?1005l${CSI}?1006l${CSI}?1015l${CSI}?1016l`;
  const tracking = MOUSE_TRACKING[modes.mouseTracking];
  if (tracking) {
    out += `${CSI}?${tracking}h`;
    const encoding = MOUSE_ENCODING[modes.mouseEncoding];
    if (encoding) out += `${CSI}?${encoding}h`;
  }
  return out;
}

/** What leaves the watcher's terminal as it was: every mode a frame may set, back to default. */
export const RESTORE_TERMINAL = `${CSI}0m${inputModeSequence(INITIAL_MODES)}${CSI}?25h`;

/** Whether a watcher's terminal has not reported its size: 0 in either (spec/attach.md, Size). */
export function isSizeUnknown(size: { readonly cols: number; readonly rows: number }): boolean {
  return size.cols === 0 || size.rows === 0;
}

/** Cuts `text` to `width` characters (code points). */
function fit(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : chars.slice(0, Math.max(0, width)).join('');
}

/** Words wrapped to lines of at most `width` characters. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line === '' ? word : `${line} ${word}`;
    if ([...next].length <= width || line === '') line = next;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== '') lines.push(line);
  return lines.map((l) => fit(l, width));
}

/**
 * The bytes that bring the watcher's terminal from `previous` (undefined: unknown, so all of it
 * is drawn) to `view`, and the state after them; data is '' when nothing changed.
 */
export function composeFrame(
  view: ScreenView,
  layout: FrameLayout,
  previous: FrameState | undefined,
): { data: string; state: FrameState } {
  if (isSizeUnknown(layout)) return composeUnsizedFrame(view, layout, previous);
  const tooSmall = layout.cols < view.cols || layout.rows < view.rows;
  const layoutKey = `${tooSmall}|${view.cols}x${view.rows}|${layout.cols}x${layout.rows}|${layout.status}`;
  const redraw = previous === undefined || previous.layout !== layoutKey;
  const inputModes = inputModeSequence(view.modes);
  let body = redraw ? `${CSI}0m${CSI}H${CSI}2J` : '';
  let rows: readonly string[] = previous && !redraw ? previous.rows : [];

  let cursor = cursorSequence(view, tooSmall);
  if (tooSmall) {
    const message = wrap(
      `agent-tty: this session is ${view.cols}x${view.rows} and this terminal is ${layout.cols}x${layout.rows}. ` +
        `Make the terminal at least ${view.cols}x${view.rows} to see the screen; what you type still reaches the program. ${layout.detachHint}`,
      layout.cols,
    ).slice(0, layout.rows);
    if (redraw) {
      message.forEach((line, i) => {
        body += `${CSI}${i + 1};1H${line}`;
      });
    }
    // Below the message, when there is room: the row the cursor is on (the prompt a person is
    // usually there to answer), labelled, redrawn as it changes, with the cursor in it.
    const at = message.length + 2;
    const line = view.cursorLine;
    if (line !== undefined && layout.rows >= at + 1) {
      const next = [
        fit(`the line with the cursor (row ${view.cursor.row + 1} of ${view.rows}):`, layout.cols),
        // Already cut to the terminal's width, in cells (a count of characters would cut
        // combining marks, and miss wide characters).
        line.text,
      ];
      next.forEach((text, i) => {
        if (!redraw && rows[i] === text) return;
        body += `${CSI}${at + i};1H${CSI}0m${CSI}2K${CSI}?7l${text}${CSI}?7h`;
      });
      rows = next;
      const { column, visible } = view.cursor;
      cursor = `${CSI}${at + 1};${column - line.firstColumn + 1}H${CSI}?25${visible ? 'h' : 'l'}`;
    } else {
      rows = [];
    }
  } else {
    const next: string[] = [];
    for (let r = 0; r < view.rows; r++) {
      const row = view.rowSequences[r] ?? '';
      next.push(row);
      if (!redraw && rows[r] === row) continue;
      body += `${CSI}${r + 1};1H${CSI}0m${CSI}2K${row}${CSI}0m`;
    }
    rows = next;
    if (redraw && layout.rows > view.rows) {
      // Autowrap off while it is written: a line wider than counted (wide characters) is cut at
      // the last column, never wrapped into a scroll of the whole picture.
      body += `${CSI}${layout.rows};1H${CSI}?7l${CSI}7m${fit(layout.status, layout.cols)}${CSI}0m${CSI}?7h`;
    }
  }

  const modesChanged = previous?.inputModes !== inputModes || redraw;
  const state = { layout: layoutKey, rows, inputModes, cursor };
  if (body === '' && !modesChanged && previous !== undefined) {
    return { data: previous.cursor === cursor ? '' : cursor, state };
  }
  const data = `${CSI}?2026h${CSI}?25l${body}${modesChanged ? inputModes : ''}${cursor}${CSI}?2026l`;
  return { data, state };
}

/**
 * The frame for a terminal that has not reported its size: the notice and the line with the
 * cursor, written from the top line after line (the terminal wraps them where it must), the
 * cursor put back in that line with DECSC/DECRC (save and restore). Every change redraws it all.
 */
function composeUnsizedFrame(
  view: ScreenView,
  layout: FrameLayout,
  previous: FrameState | undefined,
): { data: string; state: FrameState } {
  const layoutKey = `unknown|${view.cols}x${view.rows}|${layout.cols}x${layout.rows}`;
  const inputModes = inputModeSequence(view.modes);
  const { before, after } = view.cursorRow ?? { before: '', after: '' };
  const cursor = `${CSI}?25${view.cursor.visible ? 'h' : 'l'}`;
  const rows = [`row ${view.cursor.row}`, before, after];
  const state = { layout: layoutKey, rows, inputModes, cursor };
  if (
    previous?.layout === layoutKey &&
    previous.inputModes === inputModes &&
    previous.cursor === cursor &&
    rows.every((row, i) => previous.rows[i] === row)
  ) {
    return { data: '', state };
  }
  const message =
    `agent-tty: this terminal has not reported its size (it says ${layout.cols}x${layout.rows}), ` +
    `so the screen of this ${view.cols}x${view.rows} session is not shown yet. Resizing the window ` +
    `usually makes it report one; what you type still reaches the program. ${layout.detachHint}`;
  const label = `the line with the cursor (row ${view.cursor.row + 1} of ${view.rows}):`;
  const body = `${CSI}0m${CSI}H${CSI}2J${message}\r\n\r\n${label}\r\n${before}${ESC}7${after}${ESC}8`;
  const data = `${CSI}?2026h${CSI}?25l${body}${inputModes}${cursor}${CSI}?2026l`;
  return { data, state };
}

function cursorSequence(view: ScreenView, tooSmall: boolean): string {
  if (tooSmall) return `${CSI}?25l`;
  const { row, column, visible } = view.cursor;
  return `${CSI}${row + 1};${column + 1}H${CSI}?25${visible ? 'h' : 'l'}`;
}
