/**
 * The emulated screen of one session: feeds program output to @xterm/headless, knows when what
 * arrived has been parsed, applies backpressure while parsing lags, relays the terminal's replies
 * to probes, and answers questions about what is visible (grid, history, fingerprint, modes).
 */
import { DEFAULT_CONFIG, LIMITS } from '../shared/config.js';
import { PACKAGE } from '../shared/version.js';
import { FLATTEN_AFTER_UNITS } from './cell-join.js';
import type { ChunkStore } from './chunk-store.js';
import { type CommandMark, CommandMarkLog, parseCommandMark } from './command-marks.js';
import type { FilteredPiece } from './filter-pieces.js';
import { fingerprintScreen } from './fingerprint.js';
import { extractScreen, type ScreenGrid } from './grid.js';
import { HistoryTap } from './history-tap.js';
import {
  extractCells,
  extractRowText,
  type History,
  type HistorySlice,
  type RowText,
} from './lines.js';
import { OutputFilter } from './output-filter.js';
import { type ParseWork, sharedParseTurns } from './parse-turns.js';
import { installProbeReplies } from './probe-replies.js';
import { drawCells } from './row-drawing.js';
import { ModeTracker, type TerminalModes } from './terminal-modes.js';
import { makeTextSafe, truncateCodeUnits } from './text-safety.js';
import { Transcript } from './transcript.js';
import type { EncodedSlice } from './transcript-read.js';
import { cellWidth, createTerminal, type IDisposable, type Terminal } from './xterm.js';
import { flattenLongCells } from './xterm-buffers.js';
import { parseNextWriteNow } from './xterm-terminal.js';

export interface ScreenOptions {
  readonly cols: number;
  readonly rows: number;
  /** The most lines of history that `history()` shows (the scrollback view). */
  readonly scrollback: number;
  /** The most the session's transcript of history lines may hold (screen/transcript.ts). */
  readonly transcriptBytes?: number;
  /** Where the transcript's full chunks go (none: memory), and why there is none when it matters. */
  readonly transcriptStore?: ChunkStore | undefined;
  readonly transcriptError?: string | undefined;
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

/** Longest title reported; a longer one is cut and ends with an ellipsis. */
export const MAX_TITLE_LENGTH = 256;

/** The title as it can be shown: safe characters, bounded length. */
export function safeTitle(title: string): string {
  const safe = makeTextSafe(
    title.length > MAX_TITLE_LENGTH * 2 ? title.slice(0, MAX_TITLE_LENGTH * 2) : title,
  );
  if (safe.length <= MAX_TITLE_LENGTH) return safe;
  return `${truncateCodeUnits(safe, MAX_TITLE_LENGTH - 1)}…`;
}

/**
 * Lines of history the emulator itself keeps above the screen: enough for the tallest screen to
 * show rows again. The scrollback view and history read the transcript, which keeps every line in
 * a byte or so per character; a cell of the emulator takes 12 bytes, and up to about 150 with
 * joined marks and extended attributes, so its scrollback is kept short.
 */
export const EMULATOR_SCROLLBACK = LIMITS.maxRows;

/** Unparsed output at which reading from the PTY pauses, and at which it resumes. */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;
const LOW_WATER_BYTES = 1024 * 1024;
/** Most output bytes one turn of parsing takes from one screen (parse-turns.ts). */
const PIECE_BYTES = 32 * 1024;

/**
 * What a session lets others read of its screen: everything but feeding it output, resizing it,
 * listening to it and disposing it.
 */
export type ScreenReader = Pick<
  Screen,
  | 'cols'
  | 'rows'
  | 'title'
  | 'commandMarks'
  | 'commandMarkSeq'
  | 'historyTotal'
  | 'parseCount'
  | 'lastParsedAt'
  | 'pendingBytes'
  | 'quietMs'
  | 'whenParsed'
  | 'grid'
  | 'history'
  | 'rowTexts'
  | 'region'
  | 'cursor'
  | 'cursorLine'
  | 'serializeRows'
  | 'drawnText'
  | 'historySince'
  | 'historyBytes'
  | 'transcriptStats'
  | 'fingerprint'
  | 'modes'
  | 'isSynchronizedUpdate'
>;

export class Screen {
  private readonly _term: Terminal;
  private readonly _modes: ModeTracker;
  private readonly _disposables: IDisposable[];
  private readonly _now: () => number;
  private _pendingBytes = 0;
  private _pressure = false;
  private _parseCount = 0;
  private _lastParsedAt: number;
  private _resizedAt = Number.NEGATIVE_INFINITY;
  private _title = '';
  private readonly _transcript: Transcript;
  private readonly _tap: HistoryTap;
  private _historyAtLastPiece = 0;
  private readonly _filter = new OutputFilter({ widthOf: cellWidth, maxPieceBytes: PIECE_BYTES });
  private _idleWaiters: { through: number; resolve: () => void }[] = [];
  /** Output bytes parsed so far, in all. */
  private _parsedBytes = 0;
  /** Output not yet filtered, and the pieces of the batch being parsed (with its input size). */
  private _incoming: Uint8Array[] = [];
  private _incomingBytes = 0;
  private _pieces: FilteredPiece[] = [];
  private _batchSize = 0;
  private readonly _work: ParseWork = { parseStep: () => this._parseStep() };
  private readonly _listeners = new Set<() => void>();
  private readonly _marks = new CommandMarkLog();
  private _disposed = false;
  private _resizes = 0;
  private _rowsCache: { key: string; rows: readonly string[] } | undefined;

  constructor(private readonly _options: ScreenOptions) {
    this._now = _options.now ?? (() => performance.now());
    this._lastParsedAt = this._now();
    this._term = createTerminal({ ..._options, scrollback: EMULATOR_SCROLLBACK });
    this._transcript = new Transcript(
      _options.transcriptBytes ?? DEFAULT_CONFIG.transcriptBytes,
      _options.transcriptStore,
      _options.transcriptError,
    );
    this._tap = new HistoryTap(this._term, this._transcript, EMULATOR_SCROLLBACK);
    const replyText = (data: string) => this._reply(Buffer.from(data, 'utf8'));
    this._modes = new ModeTracker(this._term, replyText, this._now);
    this._disposables = [
      ...installProbeReplies(this._term, replyText, PACKAGE.version),
      this._term.onData(replyText),
      this._term.onBinary((data) => this._reply(Buffer.from(data, 'latin1'))),
      this._term.onTitleChange((title) => {
        this._title = safeTitle(title);
      }),
    ];
    const nonce = _options.commandMarkNonce;
    if (nonce !== undefined) {
      this._disposables.push(
        this._term.parser.registerOscHandler(133, (data) => {
          const mark = parseCommandMark(data, nonce);
          const { line, column, isAlternate } = this.cursorLine();
          // Marks from the alternate screen belong to a full-screen program, not to the shell.
          if (mark && !isAlternate) {
            this._marks.add(mark, line, column);
            _options.onCommandMark?.();
          }
          return true;
        }),
      );
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
    return this._pendingBytes;
  }

  /** Increments each time a written chunk finishes parsing. */
  get parseCount(): number {
    return this._parseCount;
  }

  /** When the last chunk finished parsing (performance.now() clock). */
  get lastParsedAt(): number {
    return this._lastParsedAt;
  }

  /**
   * How long nothing has reached the screen, in ms: no output parsed and no resize. 0 while
   * output is waiting to be parsed or a synchronized update is in progress.
   */
  quietMs(): number {
    if (this._pendingBytes > 0 || this.isSynchronizedUpdate()) return 0;
    return Math.max(0, Math.round(this._now() - Math.max(this._lastParsedAt, this._resizedAt)));
  }

  get title(): string {
    return this._title;
  }

  /**
   * Queues output for parsing. Chunks that arrive before the screen's next turn of parsing
   * (parse-turns.ts) are filtered as one batch and parsed a piece per turn, right after the
   * loop's I/O: faster under a firehose and sooner for a single echo than xterm's own timer,
   * and never long enough to hold up a call about another session.
   */
  write(chunk: Uint8Array): void {
    if (this._disposed || chunk.length === 0) return;
    this._pendingBytes += chunk.length;
    if (!this._pressure && this._pendingBytes > HIGH_WATER_BYTES) {
      this._pressure = true;
      this._options.onPressure?.(true);
    }
    this._incoming.push(chunk);
    this._incomingBytes += chunk.length;
    sharedParseTurns.request(this._work);
  }

  /** One turn of parsing: the next piece of the batch under way, or of a new batch. */
  private _parseStep(): boolean {
    if (this._disposed) return false;
    if (this._pieces.length === 0) this._takeBatch();
    const piece = this._pieces.shift();
    if (piece) {
      const size = this._pieces.length === 0 ? this._batchSize : 0;
      parseNextWriteNow(this._term);
      this._term.write(piece.bytes, () => {
        this._pieceParsed(piece);
        if (size > 0) this._parsed(size);
      });
    }
    return this._pieces.length > 0 || this._incoming.length > 0;
  }

  /** Filters what has arrived into the pieces of the next batch (none: it is parsed already). */
  private _takeBatch(): void {
    const chunks = this._incoming;
    const size = this._incomingBytes;
    this._incoming = [];
    this._incomingBytes = 0;
    if (size === 0) return;
    const data = chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks, size);
    this._pieces = this._filter.push(data);
    this._batchSize = size;
    // Nothing to show (a character held back whole, a dropped string): parsed as it is.
    if (this._pieces.length === 0) this._parsed(size);
  }

  /** Flattens cells with many joined marks that the piece may have written, while they are few. */
  private _pieceParsed(piece: FilteredPiece): void {
    if (this._disposed) return;
    const history = this.historyTotal;
    if (piece.hasLongCells) {
      const lines = this._tap.isExact
        ? this._term.rows + Math.max(0, history - this._historyAtLastPiece)
        : Number.POSITIVE_INFINITY;
      flattenLongCells(this._term, lines, FLATTEN_AFTER_UNITS);
    }
    this._historyAtLastPiece = history;
  }

  /**
   * Resolves once everything written so far has been parsed (what arrives meanwhile is not waited
   * for: under a flood that never pauses, the wait still ends).
   */
  whenParsed(): Promise<void> {
    if (this._pendingBytes === 0 || this._disposed) return Promise.resolve();
    const through = this._parsedBytes + this._pendingBytes;
    return new Promise((resolve) => this._idleWaiters.push({ through, resolve }));
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
    this._tap.beforeResize(cols, rows);
    this._term.resize(cols, rows);
    this._tap.afterResize();
  }

  grid(): ScreenGrid {
    return extractScreen(this._term);
  }

  /**
   * The scrollback view: the last `lines` lines of history (at most `scrollback` of them), from
   * the transcript, none from before the latest erase of the scrollback (ED 3) or reset.
   */
  history(lines: number): History {
    const total = this._tap.historyTotal;
    const first = Math.max(
      this._tap.erasedThrough,
      this._transcript.dropped,
      total - this._options.scrollback,
    );
    const availableLines = Math.max(0, total - first);
    const count = Math.min(lines, availableLines);
    const slice = this._transcript.read(total - count, count, Number.POSITIVE_INFINITY, total);
    return { lines: slice.lines, availableLines };
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
    const key = `${this._parseCount}:${this._resizes}`;
    if (this._rowsCache?.key !== key) this._rowsCache = { key, rows: this._drawRows() };
    return this._rowsCache.rows;
  }

  private _drawRows(): string[] {
    const buffer = this._term.buffer.active;
    const cols = this._term.cols;
    const cell = buffer.getNullCell();
    const rows: string[] = new Array(this._term.rows);
    for (let y = 0; y < rows.length; y++) {
      const line = buffer.getLine(buffer.baseY + y);
      rows[y] = line ? drawCells(line, 0, cols, true, cell) : '';
    }
    return rows;
  }

  /**
   * Row `row` (0-based) from cell `column` (0-based), at most `cols` cells, as plain text whose
   * characters take the cells they take on the screen (row-drawing.ts), without trailing blanks:
   * the line a person is shown on a terminal too small for the screen.
   */
  drawnText(row: number, column: number, cols: number): string {
    if (this._disposed) return '';
    const buffer = this._term.buffer.active;
    const line = buffer.getLine(buffer.baseY + row);
    const end = Math.min(this._term.cols, column + cols);
    return line ? drawCells(line, column, end, false).trimEnd() : '';
  }

  /** Lines that scrolled off the top of the normal buffer's screen: screen row r is line historyTotal + r. */
  get historyTotal(): number {
    return this._tap.historyTotal;
  }

  /**
   * History lines after line `since` up to line `end` (default: the last), from the transcript:
   * at most `maxLines`, and past the first line at most `maxBytes` of UTF-8 text.
   */
  historySince(since: number, maxLines: number, maxBytes: number, end?: number): HistorySlice {
    const total = this._tap.historyTotal;
    const last = Math.min(end ?? total, total);
    const slice = this._transcript.read(since, maxLines, maxBytes, last);
    const error = this._transcript.storeError;
    return {
      since: slice.since,
      lines: slice.lines,
      total,
      missedLines: slice.missedLines,
      ...(error === undefined ? {} : { transcriptError: error }),
    };
  }

  /** As historySince, the lines as one copy of their UTF-8 bytes (for a search elsewhere). */
  historyBytes(since: number, maxLines: number, maxBytes: number, end: number): EncodedSlice {
    const total = this._tap.historyTotal;
    return this._transcript.readBytes(since, maxLines, maxBytes, Math.min(end, total));
  }

  /** The transcript: bytes it holds and lines it dropped (for tests and measurements). */
  transcriptStats(): { keptBytes: number; allocatedBytes: number; dropped: number } {
    this._tap.sync();
    const t = this._transcript;
    return { keptBytes: t.keptBytes, allocatedBytes: t.allocatedBytes, dropped: t.dropped };
  }

  /** Drops the transcript now, its files with it (the server is exiting). */
  releaseTranscript(): void {
    this._transcript.clear();
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
    sharedParseTurns.cancel(this._work);
    this._incoming = [];
    this._pieces = [];
    for (const d of this._disposables) d.dispose();
    this._tap.dispose();
    // The transcript's chunks go now, not when the last reference to the session does.
    this._transcript.clear();
    this._modes.dispose();
    this._term.dispose();
    this._pendingBytes = 0;
    this._releaseIdleWaiters();
    this._listeners.clear();
  }

  private _reply(data: Uint8Array): void {
    if (!this._disposed) this._options.onReply(data);
  }

  private _parsed(size: number): void {
    if (this._disposed) return;
    this._pendingBytes -= size;
    this._parsedBytes += size;
    this._parseCount++;
    this._lastParsedAt = this._now();
    if (this._pressure && this._pendingBytes <= LOW_WATER_BYTES) {
      this._pressure = false;
      this._options.onPressure?.(false);
    }
    this._releaseIdleWaiters(this._parsedBytes);
    this._notify();
  }

  /** Resolves the waits for output up to `parsed` bytes (all of them by default). */
  private _releaseIdleWaiters(parsed = Number.POSITIVE_INFINITY): void {
    if (this._idleWaiters.length === 0) return;
    const waiters = this._idleWaiters;
    this._idleWaiters = waiters.filter((w) => w.through > parsed);
    for (const w of waiters) if (w.through <= parsed) w.resolve();
  }

  private _notify(): void {
    for (const listener of this._listeners) listener();
  }
}
