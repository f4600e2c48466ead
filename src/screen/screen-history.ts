/**
 * The lines above a screen: rows that scroll off are copied into the session's transcript
 * (history-tap.ts, transcript.ts), which serves the scrollback view, history pages and searches.
 * Line numbers are the one numbering of results: screen row r is line `total + r`.
 * @see spec/guarantees.md (Transcript)
 */
import { DEFAULT_CONFIG, LIMITS } from '../shared/config.js';
import type { ChunkStore } from './chunk-store.js';
import { HistoryTap } from './history-tap.js';
import type { History, HistorySlice } from './lines.js';
import { Transcript } from './transcript.js';
import type { EncodedSlice } from './transcript-read.js';
import type { Terminal } from './xterm.js';

/**
 * Lines of history the emulator itself keeps above the screen: enough for the tallest screen to
 * show rows again. The scrollback view and history read the transcript, which keeps every line in
 * a byte or so per character; a cell of the emulator takes 12 bytes, and up to about 150 with
 * joined marks and extended attributes, so its scrollback is kept short.
 */
export const EMULATOR_SCROLLBACK = LIMITS.maxRows;

export interface HistoryOptions {
  /** The most lines of history the scrollback view shows. */
  readonly scrollback: number;
  /** The most the transcript may hold (transcript.ts), where its full chunks go, and why not. */
  readonly transcriptBytes?: number | undefined;
  readonly transcriptStore?: ChunkStore | undefined;
  readonly transcriptError?: string | undefined;
}

export class ScreenHistory {
  private readonly _transcript: Transcript;
  private readonly _tap: HistoryTap;

  /** `emulatorLines`: the scrollback the emulator itself keeps (the tap reads rows from it). */
  constructor(
    term: Terminal,
    emulatorLines: number,
    private readonly _options: HistoryOptions,
  ) {
    this._transcript = new Transcript(
      _options.transcriptBytes ?? DEFAULT_CONFIG.transcriptBytes,
      _options.transcriptStore,
      _options.transcriptError,
    );
    this._tap = new HistoryTap(term, this._transcript, emulatorLines);
  }

  /** Lines that scrolled off the top of the normal buffer's screen. */
  get total(): number {
    return this._tap.historyTotal;
  }

  /** Whether the tap knows exactly which rows are new (history-tap.ts). */
  get isExact(): boolean {
    return this._tap.isExact;
  }

  /**
   * The scrollback view: the last `lines` lines (at most `scrollback` of them), none from before
   * the latest erase of the scrollback (ED 3) or reset.
   */
  view(lines: number): History {
    const total = this._tap.historyTotal;
    const first = Math.max(
      this._tap.erasedThrough,
      this._transcript.dropped,
      total - this._options.scrollback,
    );
    const availableLines = Math.max(0, total - first);
    const count = Math.min(lines, availableLines);
    const slice = this._transcript.read(total - count, count, Number.POSITIVE_INFINITY, total);
    // Reading may drop lines whose files turned out damaged (transcript.ts).
    const lost = Math.max(0, this._transcript.dropped - first);
    return { lines: slice.lines, availableLines: availableLines - lost };
  }

  /** Why the transcript does not hold every line it should (transcript.ts storeError). */
  get transcriptError(): string | undefined {
    return this._transcript.storeError;
  }

  /** Lines after `since` up to `end` (default: the last): at most `maxLines`, and `maxBytes`. */
  since(since: number, maxLines: number, maxBytes: number, end?: number): HistorySlice {
    const total = this._tap.historyTotal;
    const slice = this._transcript.read(since, maxLines, maxBytes, Math.min(end ?? total, total));
    const error = this._transcript.storeError;
    return {
      since: slice.since,
      lines: slice.lines,
      total,
      missedLines: slice.missedLines,
      ...(error === undefined ? {} : { transcriptError: error }),
    };
  }

  /** As since(), the lines as one copy of their UTF-8 bytes (for a search elsewhere). */
  bytes(since: number, maxLines: number, maxBytes: number, end: number): EncodedSlice {
    const total = this._tap.historyTotal;
    return this._transcript.readBytes(since, maxLines, maxBytes, Math.min(end, total));
  }

  /** Bytes the transcript holds and lines it dropped (for tests and measurements). */
  stats(): { keptBytes: number; allocatedBytes: number; dropped: number } {
    this._tap.sync();
    const t = this._transcript;
    return { keptBytes: t.keptBytes, allocatedBytes: t.allocatedBytes, dropped: t.dropped };
  }

  /** Around a resize of the emulator (a narrowing rewraps rows: history-tap.ts). */
  beforeResize(cols: number, rows: number): void {
    this._tap.beforeResize(cols, rows);
  }

  afterResize(): void {
    this._tap.afterResize();
  }

  /** Drops the transcript now, its files with it. */
  release(): void {
    this._transcript.clear();
  }

  dispose(): void {
    this._tap.dispose();
    this._transcript.clear();
  }
}
