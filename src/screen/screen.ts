import { PACKAGE } from '../shared/version.js';
import { FLATTEN_AFTER_UNITS } from './cell-join.js';
import { type CommandMark, CommandMarkLog, recordCommandMarks } from './command-marks.js';
import type { FilteredPiece } from './filter-pieces.js';
import { fingerprintScreen } from './fingerprint.js';
import { extractScreen, type ScreenGrid } from './grid.js';
import {
  extractCells,
  extractRowText,
  type History,
  type HistorySlice,
  type RowText,
} from './lines.js';
import { ParseFeed } from './parse-feed.js';
import { installProbeReplies } from './probe-replies.js';
import { ReplyBatch } from './reply-batch.js';
import { drawRowText, drawScreenRows } from './row-drawing.js';
import { EMULATOR_SCROLLBACK, type HistoryOptions, ScreenHistory } from './screen-history.js';
import { ModeTracker, type TerminalModes } from './terminal-modes.js';
import { safeTitle } from './title.js';
import type { EncodedSlice } from './transcript-read.js';
import { createTerminal, type IDisposable, type Terminal } from './xterm.js';
import { flattenLongCells } from './xterm-buffers.js';

export interface ScreenOptions extends HistoryOptions {
  readonly cols: number;
  readonly rows: number;
  /** Bytes the terminal sends back to the program (probe replies). */
  readonly onReply: (data: Uint8Array) => void;
  /** Called with true when unparsed output exceeds the high-water mark, false when drained. */
  readonly onPressure?: (high: boolean) => void;
  readonly now?: () => number;
  /** Record shell integration marks (OSC 133) that carry this nonce (command-marks.ts). */
  readonly commandMarkNonce?: string | undefined;
  /** Called after each mark is recorded. */
  readonly onCommandMark?: () => void;
}

/**
 * What a session lets others read of its screen: everything but feeding it output, resizing it,
 * listening to it, releasing its transcript and disposing it.
 */
export type ScreenReader = Omit<
  Screen,
  'write' | 'resize' | 'subscribe' | 'releaseTranscript' | 'dispose'
>;

export class Screen {
  private readonly _term: Terminal;
  private readonly _modes: ModeTracker;
  private readonly _disposables: IDisposable[];
  private readonly _now: () => number;
  private readonly _feed: ParseFeed;
  /** Replies gathered while a piece is parsed, written once per piece (reply-batch.ts). */
  private readonly _replies: ReplyBatch;
  private _resizedAt = Number.NEGATIVE_INFINITY;
  private _title = '';
  private readonly _history: ScreenHistory;
  private _historyAtLastPiece = 0;
  private readonly _listeners = new Set<() => void>();
  private readonly _marks = new CommandMarkLog();
  private _disposed = false;
  private _resizes = 0;
  private _rowsCache: { key: string; rows: readonly string[] } | undefined;

  constructor(private readonly _options: ScreenOptions) {
    this._now = _options.now ?? (() => performance.now());
    this._term = createTerminal({ ..._options, scrollback: EMULATOR_SCROLLBACK });
    this._replies = new ReplyBatch((data) => this._reply(data));
    this._feed = new ParseFeed(this._term, {
      pieceStarting: () => {
        this._replies.hold();
      },
      pieceParsed: (piece) => {
        this._replies.release();
        this._pieceParsed(piece);
      },
      parsed: () => this._notify(),
      onPressure: _options.onPressure,
      now: this._now,
    });
    this._history = new ScreenHistory(this._term, EMULATOR_SCROLLBACK, _options);
    const replyText = (data: string) => this._replies.add(data);
    this._modes = new ModeTracker(this._term, replyText, this._now);
    this._disposables = [
      ...installProbeReplies(this._term, replyText, PACKAGE.version),
      this._term.onData(replyText),
      this._term.onBinary((data) => this._replies.add(Buffer.from(data, 'latin1'))),
      this._term.onTitleChange((title) => {
        this._title = safeTitle(title);
      }),
    ];
    const { commandMarkNonce: nonce, onCommandMark: onMark } = _options;
    const where = () => this.cursorLine();
    if (nonce !== undefined) {
      this._disposables.push(recordCommandMarks(this._term, nonce, this._marks, where, onMark));
    }
  }

  /** The shell integration marks recorded so far (none without a nonce), oldest first. */
  get commandMarks(): readonly CommandMark[] {
    return this._marks.marks;
  }

  /** Seq of the last mark recorded (0 before the first). */
  get commandMarkSeq(): number {
    return this._marks.seq;
  }

  /** The cursor's line in the one line numbering (line historyTotal + row) and its column. */
  cursorLine(): { line: number; column: number; isAlternate: boolean } {
    const buffer = this._term.buffer.active;
    return {
      line: this.historyTotal + buffer.cursorY + 1,
      column: buffer.cursorX + 1,
      isAlternate: buffer.type === 'alternate',
    };
  }

  get cols(): number {
    return this._term.cols;
  }

  get rows(): number {
    return this._term.rows;
  }

  /** Bytes written but not yet parsed. */
  get pendingBytes(): number {
    return this._feed.pendingBytes;
  }

  /** Increments each time a written chunk finishes parsing. */
  get parseCount(): number {
    return this._feed.parseCount;
  }

  /** When the last chunk finished parsing (performance.now() clock). */
  get lastParsedAt(): number {
    return this._feed.lastParsedAt;
  }

  /**
   * How long nothing has reached the screen, in ms: no output parsed and no resize. 0 while
   * output is waiting to be parsed or a synchronized update is in progress.
   */
  quietMs(): number {
    if (this.pendingBytes > 0 || this.isSynchronizedUpdate()) return 0;
    return Math.max(0, Math.round(this._now() - Math.max(this.lastParsedAt, this._resizedAt)));
  }

  get title(): string {
    return this._title;
  }

  /** Queues output for parsing (parse-feed.ts). */
  write(chunk: Uint8Array): void {
    if (!this._disposed) this._feed.write(chunk);
  }

  /** Flattens cells with many joined marks that the piece may have written, while they are few. */
  private _pieceParsed(piece: FilteredPiece): void {
    if (this._disposed) return;
    const history = this.historyTotal;
    if (piece.hasLongCells) {
      const lines = this._history.isExact
        ? this._term.rows + Math.max(0, history - this._historyAtLastPiece)
        : Number.POSITIVE_INFINITY;
      flattenLongCells(this._term, lines, FLATTEN_AFTER_UNITS);
    }
    this._historyAtLastPiece = history;
  }

  /** Resolves once everything written so far has been parsed (parse-feed.ts). */
  whenParsed(): Promise<void> {
    return this._feed.whenParsed();
  }

  /** Calls `listener` after each parsed chunk, and on resize; returns an unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this._listeners.add(listener);
    return () => this._listeners.delete(listener);
  }

  resize(cols: number, rows: number): void {
    if (this._disposed) return;
    // A narrowing is planned at the new height (history-tap.ts): the height changes first.
    if (cols < this._term.cols && rows !== this._term.rows) this._resizeOnce(this._term.cols, rows);
    this._resizeOnce(cols, rows);
    this._resizes++;
    this._resizedAt = this._now();
    this._notify();
  }

  private _resizeOnce(cols: number, rows: number): void {
    this._history.beforeResize(cols, rows);
    this._term.resize(cols, rows);
    this._history.afterResize();
  }

  grid(): ScreenGrid {
    return extractScreen(this._term);
  }

  /** The scrollback view: the last `lines` lines of history (screen-history.ts). */
  history(lines: number): History {
    return this._history.view(lines);
  }

  /** Every row of the screen as text, with the cell column of each character. */
  rowTexts(): RowText[] {
    return Array.from({ length: this._term.rows }, (_, y) => extractRowText(this._term, y));
  }

  /** Text of the cells [startColumn, endColumn] of each row in [row, row + rows), 1-based. */
  region(row: number, column: number, rows: number, cols: number): string[] {
    const lines: string[] = [];
    const last = Math.min(this._term.rows, row + rows - 1);
    const end = Math.min(this._term.cols, column + cols - 1);
    for (let y = row; y <= last; y++) lines.push(extractCells(this._term, y - 1, column, end));
    return lines;
  }

  /** The cursor on the active buffer's screen, 0-based, its column within the screen. */
  cursor(): { row: number; column: number; visible: boolean } {
    const buffer = this._term.buffer.active;
    const column = Math.min(buffer.cursorX, this._term.cols - 1);
    return { row: buffer.cursorY, column, visible: this._modes.modes().cursorVisible };
  }

  /**
   * Each screen row as the escape sequences that draw it from the default style at its first
   * column (row-drawing.ts): what a person watching the session is shown. Kept until the screen
   * next changes (output parsed, a resize), so several watchers share one.
   */
  serializeRows(): readonly string[] {
    if (this._disposed) return [];
    const key = `${this.parseCount}:${this._resizes}`;
    if (this._rowsCache?.key !== key) this._rowsCache = { key, rows: drawScreenRows(this._term) };
    return this._rowsCache.rows;
  }

  /**
   * Row `row` (0-based) from cell `column` (0-based), at most `cols` cells, as plain text whose
   * characters take the cells they take on the screen (row-drawing.ts), without trailing blanks:
   * the line a person is shown on a terminal too small for the screen.
   */
  drawnText(row: number, column: number, cols: number): string {
    return this._disposed ? '' : drawRowText(this._term, row, column, cols);
  }

  /** Lines that scrolled off the top of the normal buffer's screen: row r is line historyTotal + r. */
  get historyTotal(): number {
    return this._history.total;
  }

  /** Why the transcript does not hold every line it should: the disk refused it, a file is damaged. */
  get transcriptError(): string | undefined {
    return this._history.transcriptError;
  }

  /** History lines after `since` up to `end` (screen-history.ts): at most `maxLines`, `maxBytes`. */
  historySince(since: number, maxLines: number, maxBytes: number, end?: number): HistorySlice {
    return this._history.since(since, maxLines, maxBytes, end);
  }

  /** As historySince, the lines as one copy of their UTF-8 bytes (for a search elsewhere). */
  historyBytes(since: number, maxLines: number, maxBytes: number, end: number): EncodedSlice {
    return this._history.bytes(since, maxLines, maxBytes, end);
  }

  transcriptStats(): { keptBytes: number; allocatedBytes: number; dropped: number } {
    return this._history.stats();
  }

  /** Drops the transcript now, its files with it (the server is exiting). */
  releaseTranscript(): void {
    this._history.release();
  }

  fingerprint(): string {
    return fingerprintScreen(this._term);
  }

  modes(): TerminalModes {
    return this._modes.modes();
  }

  isSynchronizedUpdate(): boolean {
    return this._modes.isSynchronizedUpdate();
  }

  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    this._feed.dispose();
    this._replies.discard();
    for (const d of this._disposables) d.dispose();
    // The transcript's chunks go now, not when the last reference to the session does.
    this._history.dispose();
    this._modes.dispose();
    this._term.dispose();
    this._listeners.clear();
  }

  private _reply(data: Uint8Array): void {
    if (!this._disposed) this._options.onReply(data);
  }

  private _notify(): void {
    for (const listener of this._listeners) listener();
  }
}
