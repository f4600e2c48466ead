/**
 * Draws screen rows for a person watching a session (attach): a row's cells as the sequences and
 * text that paint them on a blank row of another terminal, from the default style at the first
 * cell's column. Each cell takes exactly the columns it takes on agent-tty's screen, and its
 * characters are made safe as results make them (text-safety.ts): a character results show as a
 * stand-in shows as that stand-in in the cell it took, and one that took no cell (a bidirectional
 * or invisible character joined to the one before it) is left out, since a stand-in drawn for it
 * would push the rest of the row out of line. Pure over the emulator's buffer lines.
 * @see ../../spec/attach.md (Frames)
 */
import { cellChars } from './lines.js';
import { CM_P16, CM_P256, CM_RGB, COLOR_MODE_MASK, cellFlags, INVISIBLE_FLAG } from './style.js';
import { isSafeText, safeCodePoint } from './text-safety.js';
import type { IBufferCell, IBufferLine, Terminal } from './xterm.js';

const CSI = '\x1b[';

/** SGR parameters of the flag bits of style.ts cellFlags, in its order (bold 1 … overline 256). */
const FLAG_SGR = ['1', '2', '3', '4', '5', '7', '8', '9', '53'];

/** The SGR sequence that sets exactly colour words `fg`, `bg` and flag bits `flags`. */
export function sgrSequence(fg: number, bg: number, flags: number): string {
  let out = `${CSI}0`;
  for (let i = 0; i < FLAG_SGR.length; i++) if (flags & (1 << i)) out += `;${FLAG_SGR[i]}`;
  return `${out}${colorParams(fg, 30, 90, 38)}${colorParams(bg, 40, 100, 48)}m`;
}

/**
 * The SGR sequence that takes the style from colour words `fromFg`, `fromBg` and flags `flags` to
 * `fg`, `bg` and the same flags: only the colours that change (the whole style when flags change,
 * sgrSequence).
 */
function colorChange(fromFg: number, fromBg: number, fg: number, bg: number): string {
  let params = '';
  if (fg !== fromFg) params += fg === 0 ? ';39' : colorParams(fg, 30, 90, 38);
  if (bg !== fromBg) params += bg === 0 ? ';49' : colorParams(bg, 40, 100, 48);
  return `${CSI}${params.slice(1)}m`;
}

function colorParams(word: number, base: number, bright: number, extended: number): string {
  const mode = word & COLOR_MODE_MASK;
  const value = word & 0xffffff;
  if (mode === CM_P16) return `;${value < 8 ? base + value : bright + (value & 7)}`;
  if (mode === CM_P256) return `;${extended};5;${value}`;
  if (mode === CM_RGB)
    return `;${extended};2;${value >>> 16};${(value >>> 8) & 0xff};${value & 0xff}`;
  return '';
}

function colorWord(mode: number, color: number): number {
  return mode === 0 ? 0 : mode | (color & 0xffffff);
}

/**
 * The characters of a cell `width` columns wide as a person is shown them: its first character,
 * or the stand-in results show for it (padded to the cell's width), then the characters joined to
 * it (combining marks) except those results replace, which take no column of their own.
 */
export function safeCellText(chars: string, width: number): string {
  if (isSafeText(chars)) return chars;
  const base = chars.codePointAt(0) as number;
  const safe = safeCodePoint(base);
  let text = safe === base ? String.fromCodePoint(base) : String.fromCodePoint(safe);
  if (safe !== base && width === 2) text += ' ';
  return text + joinedMarks(chars.slice(base > 0xffff ? 2 : 1));
}

/** `chars` without the characters results replace (all joined to a cell, none takes a column). */
function joinedMarks(chars: string): string {
  let out = '';
  for (const ch of chars) {
    const cp = ch.codePointAt(0) as number;
    if (safeCodePoint(cp) === cp) out += ch;
  }
  return out;
}

/** Accumulates one row's drawing. */
class RowPainter {
  out = '';
  private _fg = 0;
  private _bg = 0;
  private _flags = 0;
  /** Blank cells passed over and not drawn yet, with the style of the first. */
  private _blanks = 0;
  private _blankFg = 0;
  private _blankBg = 0;
  private _blankFlags = 0;
  /** Whether the last thing drawn is a character that a combining mark would join. */
  private _afterGlyph = false;

  constructor(private readonly _styled: boolean) {}

  /**
   * Text taking its columns, in a style; `joinable`: whether a combining mark drawn next may join
   * it (not spaces standing for a concealed cell, which would conceal the mark too).
   */
  glyph(text: string, fg: number, bg: number, flags: number, joinable = true): void {
    this._flushBlanks();
    if (this._styled) this._setStyle(fg, bg, flags);
    this.out += text;
    this._afterGlyph = joinable;
  }

  /** `count` cells without characters: only their background shows (as an erase paints it). */
  blank(count: number, fg: number, bg: number, flags: number): void {
    if (this._blanks > 0 && bg !== this._blankBg) this._flushBlanks();
    if (this._blanks === 0) {
      this._blankFg = fg;
      this._blankBg = bg;
      this._blankFlags = flags;
    }
    this._blanks += count;
  }

  /**
   * Combining marks the emulator gave a cell of their own: joined to the character before when
   * that was just drawn (as the agent's text reads), the cell itself a space; else on a space.
   */
  marks(marks: string, fg: number, bg: number, flags: number): void {
    if (this._afterGlyph && this._blanks === 0) {
      this.out += marks;
      this.glyph(' ', fg, bg, flags);
    } else {
      this.glyph(` ${marks}`, fg, bg, flags);
    }
  }

  /** The row's drawing; blanks at its end are drawn only when they have a background. */
  end(): string {
    if (this._blanks > 0 && this._styled && this._blankBg !== 0) {
      this._setStyle(this._blankFg, this._blankBg, this._blankFlags);
      this.out += `${CSI}${this._blanks}X`;
    }
    this._blanks = 0;
    return this.out;
  }

  private _flushBlanks(): void {
    const n = this._blanks;
    if (n === 0) return;
    this._blanks = 0;
    this._afterGlyph = false;
    if (!this._styled) {
      this.out += ' '.repeat(n);
      return;
    }
    if (this._blankBg !== 0) {
      this._setStyle(this._blankFg, this._blankBg, this._blankFlags);
      this.out += `${CSI}${n}X`;
    }
    this.out += n === 1 ? `${CSI}C` : `${CSI}${n}C`;
  }

  private _setStyle(fg: number, bg: number, flags: number): void {
    if (fg === this._fg && bg === this._bg && flags === this._flags) return;
    this.out +=
      flags === this._flags ? colorChange(this._fg, this._bg, fg, bg) : sgrSequence(fg, bg, flags);
    this._fg = fg;
    this._bg = bg;
    this._flags = flags;
  }
}

/**
 * Cells [start, end) of `line` (0-based) as what draws them at the cursor's column on a blank row,
 * from the default style: with `styled`, colours and attributes as SGR sequences and runs of
 * cells without characters as cursor moves (and erases, for a background); without, plain text
 * with spaces for them. Concealed cells and a wide character cut by either edge are blanks, as in
 * the agent's text (lines.ts readCells).
 */
export function drawCells(
  line: IBufferLine,
  start: number,
  end: number,
  styled: boolean,
  scratch?: IBufferCell,
): string {
  const painter = new RowPainter(styled);
  const last = Math.min(end, line.length);
  let cell = scratch;
  for (let x = start; x < last; x++) {
    cell = line.getCell(x, cell) ?? cell;
    const c = cell as IBufferCell;
    const width = c.getWidth();
    const chars = cellChars(c);
    if (width === 0 && chars === '') {
      // The second half of a wide character, drawn with its first; or, at the range's start,
      // of one whose first half lies before it.
      if (x === start) painter.blank(1, 0, 0, 0);
      continue;
    }
    const fg = colorWord(c.getFgColorMode(), c.getFgColor());
    const bg = colorWord(c.getBgColorMode(), c.getBgColor());
    const flags = cellFlags(c);
    const columns = Math.min(width === 0 ? 1 : width, last - x);
    if (chars === '') {
      painter.blank(columns, fg, bg, flags);
    } else if (flags & INVISIBLE_FLAG || x + width > last) {
      painter.glyph(' '.repeat(columns), fg, bg, flags, false);
    } else if (width === 0) {
      // A zero-width character the emulator gave a cell of its own (after an escape sequence,
      // or at a row's start): one column, like every cell.
      const marks = joinedMarks(chars);
      if (marks === '') painter.glyph('\uFFFD', fg, bg, flags);
      else painter.marks(marks, fg, bg, flags);
    } else {
      painter.glyph(safeCellText(chars, width), fg, bg, flags);
    }
  }
  return painter.end();
}

/**
 * Each screen row as the escape sequences that draw it from the default style at its first
 * column: what a person watching the session is shown.
 */
export function drawScreenRows(term: Terminal): string[] {
  const buffer = term.buffer.active;
  const cell = buffer.getNullCell();
  const rows: string[] = new Array(term.rows);
  for (let y = 0; y < rows.length; y++) {
    const line = buffer.getLine(buffer.baseY + y);
    rows[y] = line ? drawCells(line, 0, term.cols, true, cell) : '';
  }
  return rows;
}

/**
 * Row `row` (0-based) from cell `column` (0-based), at most `cols` cells, as plain text whose
 * characters take the cells they take on the screen, without trailing blanks: the line a person
 * is shown on a terminal too small for the screen.
 */
export function drawRowText(term: Terminal, row: number, column: number, cols: number): string {
  const buffer = term.buffer.active;
  const line = buffer.getLine(buffer.baseY + row);
  const end = Math.min(term.cols, column + cols);
  return line ? drawCells(line, column, end, false).trimEnd() : '';
}
