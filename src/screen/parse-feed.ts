/**
 * Output on its way into the emulator. Chunks that arrive before the screen's next turn of
 * parsing (parse-turns.ts) are filtered as one batch (output-filter.ts) and parsed a piece per
 * turn, right after the loop's I/O: faster under a firehose and sooner for a single echo than
 * xterm's own timer, and never long enough to hold up a call about another session (the replies a
 * piece provokes are written once, after it: reply-batch.ts). Counts what
 * is pending and parsed, pauses the PTY past HIGH_WATER_BYTES until LOW_WATER_BYTES, and resolves
 * the waits for what arrived before them.
 */
import type { FilteredPiece } from './filter-pieces.js';
import { OutputFilter } from './output-filter.js';
import { type ParseWork, sharedParseTurns } from './parse-turns.js';
import { cellWidth, type Terminal } from './xterm.js';
import { parseNextWriteNow } from './xterm-terminal.js';

/** Unparsed output at which reading from the PTY pauses, and at which it resumes. */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;
const LOW_WATER_BYTES = 1024 * 1024;
/** Most output bytes one turn of parsing takes from one screen (parse-turns.ts). */
const PIECE_BYTES = 32 * 1024;

export interface FeedEvents {
  /**
   * A piece is about to be parsed (the screen gathers the replies it produces until pieceParsed;
   * were a handler to pause the parse, pieceParsed would come in a later turn).
   */
  readonly pieceStarting?: () => void;
  /** A piece was parsed (the screen flattens the long cells it may have written). */
  readonly pieceParsed: (piece: FilteredPiece) => void;
  /** A written batch finished parsing. */
  readonly parsed: () => void;
  /** true when unparsed output passes the high-water mark, false once it has drained. */
  readonly onPressure?: ((high: boolean) => void) | undefined;
  readonly now: () => number;
}

export class ParseFeed {
  private _pendingBytes = 0;
  private _pressure = false;
  private _parseCount = 0;
  private _lastParsedAt: number;
  /** Output bytes parsed so far, in all. */
  private _parsedBytes = 0;
  private _waiters: { through: number; resolve: () => void }[] = [];
  /** Output not yet filtered, and the pieces of the batch being parsed (with its input size). */
  private _incoming: Uint8Array[] = [];
  private _incomingBytes = 0;
  private _pieces: FilteredPiece[] = [];
  private _batchSize = 0;
  private readonly _filter = new OutputFilter({ widthOf: cellWidth, maxPieceBytes: PIECE_BYTES });
  private readonly _work: ParseWork = { parseStep: () => this._parseStep() };
  private _disposed = false;
  /** A piece was written to the emulator and its parse has not finished (a handler paused it). */
  private _inFlight = false;

  constructor(
    private readonly _term: Terminal,
    private readonly _events: FeedEvents,
  ) {
    this._lastParsedAt = _events.now();
  }

  /** Bytes written but not yet parsed. */
  get pendingBytes(): number {
    return this._pendingBytes;
  }

  /** Increments each time a written batch finishes parsing. */
  get parseCount(): number {
    return this._parseCount;
  }

  /** When the last batch finished parsing (performance.now() clock). */
  get lastParsedAt(): number {
    return this._lastParsedAt;
  }

  /** Queues output for parsing. */
  write(chunk: Uint8Array): void {
    if (this._disposed || chunk.length === 0) return;
    this._pendingBytes += chunk.length;
    if (!this._pressure && this._pendingBytes > HIGH_WATER_BYTES) {
      this._pressure = true;
      this._events.onPressure?.(true);
    }
    this._incoming.push(chunk);
    this._incomingBytes += chunk.length;
    sharedParseTurns.request(this._work);
  }

  /**
   * Resolves once everything written so far has been parsed (what arrives meanwhile is not waited
   * for: under a flood that never pauses, the wait still ends).
   */
  whenParsed(): Promise<void> {
    if (this._pendingBytes === 0 || this._disposed) return Promise.resolve();
    const through = this._parsedBytes + this._pendingBytes;
    return new Promise((resolve) => this._waiters.push({ through, resolve }));
  }

  /** Drops what is not parsed yet and ends every wait. */
  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    sharedParseTurns.cancel(this._work);
    this._incoming = [];
    this._pieces = [];
    this._pendingBytes = 0;
    this._releaseWaiters();
  }

  /** One turn of parsing: the next piece of the batch under way, or of a new batch. */
  private _parseStep(): boolean {
    // A piece whose parse a handler paused is still being parsed: nothing more may reach the
    // emulator until it is done; its callback asks for the next turn.
    if (this._disposed || this._inFlight) return false;
    if (this._pieces.length === 0) this._takeBatch();
    const piece = this._pieces.shift();
    if (piece) {
      const size = this._pieces.length === 0 ? this._batchSize : 0;
      this._events.pieceStarting?.();
      this._inFlight = true;
      let synchronous = true;
      parseNextWriteNow(this._term);
      this._term.write(piece.bytes, () => {
        this._inFlight = false;
        if (this._disposed) return;
        this._events.pieceParsed(piece);
        if (size > 0) this._parsed(size);
        if (!synchronous && this._hasMore()) sharedParseTurns.request(this._work);
      });
      synchronous = false;
      if (this._inFlight) return false;
    }
    return this._hasMore();
  }

  private _hasMore(): boolean {
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

  private _parsed(size: number): void {
    if (this._disposed) return;
    this._pendingBytes -= size;
    this._parsedBytes += size;
    this._parseCount++;
    this._lastParsedAt = this._events.now();
    if (this._pressure && this._pendingBytes <= LOW_WATER_BYTES) {
      this._pressure = false;
      this._events.onPressure?.(false);
    }
    this._releaseWaiters(this._parsedBytes);
    this._events.parsed();
  }

  /** Resolves the waits for output up to `parsed` bytes (all of them by default). */
  private _releaseWaiters(parsed = Number.POSITIVE_INFINITY): void {
    if (this._waiters.length === 0) return;
    const waiters = this._waiters;
    this._waiters = waiters.filter((w) => w.through > parsed);
    for (const w of waiters) if (w.through <= parsed) w.resolve();
  }
}
