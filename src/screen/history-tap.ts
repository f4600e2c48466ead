/**
 * Copies every row that scrolls off the top of the normal buffer's screen into the session's
 * transcript, before the emulator's own scrollback can drop it, and numbers history lines: line N
 * is the N-th row that ever scrolled off; screen row r is line historyTotal + r. Rows are copied
 * in batches, when half the emulator's scrollback is waiting, before anything that drops
 * scrollback (ED 3, a reset, a resize) and before every read. A narrowing resize is bounded
 * first (narrowing.ts): rows it would push out of the emulator are copied before it.
 * @see spec/tools.md (terminal_snapshot)
 */
import { planNarrowing, rawNarrowingRows } from './narrowing.js';
import { encodeRawRow, MAX_CELL_BYTES, readRowText } from './row-bytes.js';
import type { Transcript } from './transcript.js';
import type { IDisposable, Terminal } from './xterm.js';
import {
  asWritableLine,
  type BufferSet,
  bufferSet,
  type LineMarker,
  type NormalBuffer,
  normalBuffer,
} from './xterm-buffers.js';
import { asRawLine } from './xterm-core.js';
import { onEveryScroll } from './xterm-terminal.js';

/** The most rows copied in one batch while output is being parsed. */
const MAX_BATCH = 1024;

export class HistoryTap {
  private readonly _disposables: IDisposable[];
  private readonly _batch: number;
  /** The normal buffer whose trims are counted (a reset replaces it); undefined without internals. */
  private _buffer: NormalBuffer | undefined;
  /** Where a reset puts the new normal buffer (checked on every scroll, so read cheaply). */
  private readonly _buffers: BufferSet | undefined;
  private _trim: IDisposable | undefined;
  /** Lines trimmed from the top of `_lines`: position p of it is index p - _trimmed. */
  private _trimmed = 0;
  /** Position of the next row to copy; ahead of the end while rows a resize pulled back are shown. */
  private _captured = 0;
  /** Transcript line number of position p is _base + p + 1. */
  private _base = 0;
  private _marker: LineMarker | undefined;
  /** The resize under way narrows the screen. */
  private _isNarrowing = false;
  /** The resize under way had every row copied before it (narrowing.ts). */
  private _isCopiedToEnd = false;
  /** The last line an erase of the scrollback (ED 3) or a reset took out of the scrollback view. */
  private _erasedThrough = 0;
  private _scratch = Buffer.alloc(0);
  private _disposed = false;

  /** `scrollback`: the emulator's scrollback lines (at least 2: rows wait there in batches). */
  constructor(
    private readonly _term: Terminal,
    private readonly _transcript: Transcript,
    private readonly _scrollback: number,
  ) {
    this._batch = Math.max(1, Math.min(MAX_BATCH, Math.floor(_scrollback / 2)));
    this._buffers = bufferSet(_term);
    this._bind();
    const beforeErase = (params: (number | number[])[]) => {
      // ED 3 drops the scrollback: copy what waits first.
      if (params[0] === 3) {
        this.sync();
        if (this._term.buffer.active.type === 'normal') this._erasedThrough = this.historyTotal;
      }
      return false;
    };
    this._disposables = [
      onEveryScroll(_term, () => this._onScroll()),
      _term.parser.registerCsiHandler({ final: 'J' }, beforeErase),
      _term.parser.registerCsiHandler({ prefix: '?', final: 'J' }, beforeErase),
      // RIS replaces the buffers: copy what waits first.
      _term.parser.registerEscHandler({ final: 'c' }, () => {
        this.sync();
        return false;
      }),
    ];
  }

  /** Whether every row is copied; false when the emulator's internals are not as expected. */
  get isExact(): boolean {
    return this._buffer !== undefined;
  }

  /** Lines that have scrolled off the screen so far (rows shown again after a resize excluded). */
  get historyTotal(): number {
    this.sync();
    return this._disposed ? this._transcript.total : this._base + this._end();
  }

  /**
   * The last line taken out of the scrollback view: by the latest erase of the scrollback (ED 3)
   * or reset; 0 before any. History keeps such lines.
   */
  get erasedThrough(): number {
    this.sync();
    return this._erasedThrough;
  }

  /** Copies the rows waiting in the emulator's scrollback into the transcript. */
  sync(): void {
    if (this._disposed) return;
    this._rebindAfterReset();
    const end = this._end();
    if (this._captured >= end) return;
    // Rows already trimmed cannot be read (only without trim counts): they go unnumbered.
    this._copyRows(Math.max(this._captured, this._trimmed) - this._trimmed, end - this._trimmed);
    this._captured = end;
    this._base = this._transcript.total - end;
  }

  /**
   * Before a resize to `cols` × `rows`: copies what waits and marks the first row not copied yet,
   * which reflow may move: the screen's top row, or below it while a taller screen shows copied
   * rows again. A narrowing one is bounded first (see _boundNarrowing).
   */
  beforeResize(cols: number, rows: number): void {
    this.sync();
    this._isNarrowing = cols < this._term.cols;
    this._isCopiedToEnd = false;
    let mark = this._captured - this._trimmed;
    if (this._isNarrowing) mark = this._boundNarrowing(cols, rows, mark);
    this._marker = this._isCopiedToEnd ? undefined : this._buffer?.addMarker(mark);
  }

  /**
   * After a resize: rows between the marked row and the screen scrolled off with the resize and
   * are copied; rows copied before (history that a taller screen showed again, pushed off again
   * by a shorter one) are not copied a second time.
   */
  afterResize(): void {
    const marker = this._marker;
    this._marker = undefined;
    const length = this._buffer?.lines.length ?? 0;
    let top: number;
    if (this._isCopiedToEnd) top = this._trimmed + length;
    else if (marker && !marker.isDisposed) top = this._trimmed + Math.min(marker.line, length);
    // A narrowing dropped the marked row from the top: every row left came after it.
    else if (marker && this._isNarrowing) top = this._trimmed;
    else top = this._end();
    marker?.dispose();
    this._isNarrowing = false;
    this._isCopiedToEnd = false;
    this._captured = top;
    this._base = this._transcript.total - top;
    this.sync();
  }

  /** Stops copying (the emulator is going away); the numbering stays as it was. */
  dispose(): void {
    this._disposed = true;
    for (const d of this._disposables) d.dispose();
    this._trim?.dispose();
    this._marker?.dispose();
  }

  /**
   * Bounds a narrowing resize (narrowing.ts): rows above those certain to fit once rewrapped are
   * copied (those not copied yet) and blanked, so the emulator does not rewrap them and drops
   * them first. Returns the first row not copied.
   */
  private _boundNarrowing(cols: number, rows: number, mark: number): number {
    const buffer = this._buffer;
    const lines = buffer?.lines;
    const nullCell =
      typeof buffer?.getNullCell === 'function' ? (buffer.getNullCell() as unknown) : undefined;
    const line = (y: number) => asWritableLine(lines?.get(y));
    if (!buffer || !lines || nullCell === undefined || !line(0)) return mark;
    const view = rawNarrowingRows(lines.length, line, this._term.cols);
    const cursor = buffer.ybase + this._term.buffer.normal.cursorY;
    const plan = planNarrowing(view, cols, rows + this._scrollback, rows, cursor);
    if (plan.blankBefore > mark) {
      this._copyRows(mark, plan.blankBefore);
      this._captured = this._trimmed + plan.blankBefore;
      this._base = this._transcript.total - this._captured;
      this._isCopiedToEnd = plan.blankBefore >= lines.length;
      mark = plan.blankBefore;
    }
    for (let y = 0; y < plan.blankBefore; y++) {
      const blanked = line(y);
      if (!blanked) continue;
      blanked.fill(nullCell);
      blanked.isWrapped = false;
    }
    const first = plan.unwrap ? line(plan.blankBefore) : undefined;
    if (first) first.isWrapped = false;
    return mark;
  }

  /** Appends rows [first, stop) of the normal buffer's lines to the transcript. */
  private _copyRows(first: number, stop: number): void {
    const cols = this._term.cols;
    const need = cols * MAX_CELL_BYTES;
    if (this._scratch.length < need) this._scratch = Buffer.allocUnsafe(need);
    const lines = this._buffer?.lines;
    const raw = (y: number) => asRawLine(lines?.get(y));
    if (raw(first)) {
      this._transcript.appendRows(stop - first, need, this._scratch, (i, out, at) => {
        const row = raw(first + i);
        return row ? encodeRawRow(row, cols, out, at) : at;
      });
    } else {
      for (let y = first; y < stop; y++) {
        const line = this._term.buffer.normal.getLine(y);
        this._transcript.appendText(line ? readRowText(line, cols) : '');
      }
    }
  }

  /** Position just past the last history row (the screen's top row). */
  private _end(): number {
    return this._trimmed + (this._buffer ? this._buffer.ybase : this._term.buffer.normal.baseY);
  }

  private _onScroll(): void {
    this._rebindAfterReset();
    if (this._end() - this._captured >= this._batch) this.sync();
  }

  private _bind(): void {
    this._buffer = normalBuffer(this._term);
    this._trimmed = 0;
    this._trim = this._buffer?.lines.onTrim((count) => {
      this._trimmed += count;
    });
  }

  /** After a reset (new buffers): numbering goes on from the transcript's last line. */
  private _rebindAfterReset(): void {
    if (this._buffer === undefined || this._buffers?.normal === this._buffer) return;
    this._trim?.dispose();
    this._bind();
    this._captured = 0;
    this._base = this._transcript.total;
    this._erasedThrough = this._transcript.total;
  }
}
