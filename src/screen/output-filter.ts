/**
 * Bounds what program output can make the emulator hold, before the output reaches it: a cell
 * keeps at most MAX_CELL_UNITS UTF-16 units (cell-join.ts: its character and the combining marks
 * that join it; the rest of the run is dropped), and an OSC, DCS, SOS, PM or APC string carries at
 * most MAX_STRING_BYTES (a longer one is cancelled with CAN and dropped up to its end). Everything
 * else passes byte for byte. The filter decodes UTF-8 and follows the parser's state exactly as
 * the emulator does (parser-state.ts), and cuts its output only between code points
 * (filter-pieces.ts), so the emulator never has to carry a partial character from one write to
 * the next. ASCII outside strings, most output, steps the state without decoding
 * (ascii-run.ts). Pure.
 * @see ../../spec/guarantees.md#guarantees (11)
 */
import { Buffer, isAscii } from 'node:buffer';
import { type AsciiRun, newAsciiRun, REP_FINAL, scanAsciiRun } from './ascii-run.js';
import { CellJoin, FLATTEN_AFTER_UNITS } from './cell-join.js';
import { concat, type FilteredPiece, PieceBuilder } from './filter-pieces.js';
import {
  BREAK,
  GROUND,
  isInString,
  OPEN,
  type ParserState,
  PRINT,
  transition,
} from './parser-state.js';

/** Most payload bytes of one OSC, DCS, SOS, PM or APC string. */
export const MAX_STRING_BYTES = 64 * 1024;

const CAN = Uint8Array.of(0x18);
const EMPTY = new Uint8Array(0);
const EMPTY_BUFFER = Buffer.alloc(0);

export interface OutputFilterOptions {
  /** Cells a code point takes, by the emulator's own Unicode tables: 0 joins the cell before. */
  readonly widthOf: (cp: number) => number;
  readonly maxCellUnits?: number;
  readonly maxStringBytes?: number;
  readonly maxPieceBytes?: number;
}

export class OutputFilter {
  private readonly _maxStringBytes: number;
  private readonly _cell: CellJoin;
  private readonly _out: PieceBuilder;
  private readonly _run: AsciiRun = newAsciiRun();
  private _held: Uint8Array = EMPTY;
  private _state: ParserState = GROUND;
  private _stringBytes = 0;
  // Input of the push under way.
  private _data: Uint8Array = EMPTY;
  /** `_data` as a Buffer, for a native search. */
  private _buffer: Buffer = EMPTY_BUFFER;
  /** `_data` is all ASCII: text between escapes needs no byte-by-byte look. */
  private _isAscii = false;

  constructor(options: OutputFilterOptions) {
    this._cell = new CellJoin(options.widthOf, options.maxCellUnits);
    this._maxStringBytes = options.maxStringBytes ?? MAX_STRING_BYTES;
    this._out = new PieceBuilder(options.maxPieceBytes);
  }

  /** The parser state the emulator is in after everything passed so far. */
  get state(): ParserState {
    return this._out.isSkipping ? GROUND : this._state;
  }

  /** The start of a character not yet complete, held back until the rest arrives. */
  get held(): Uint8Array {
    return this._held;
  }

  /** Filters the next chunk of output into pieces to write to the emulator in order. */
  push(chunk: Uint8Array): FilteredPiece[] {
    const data = this._held.length === 0 ? chunk : concat([this._held, chunk]);
    const out = this._out;
    this._held = EMPTY;
    this._data = data;
    this._buffer = Buffer.from(data.buffer, data.byteOffset, data.length);
    this._isAscii = isAscii(data);
    out.begin(data);
    const n = data.length;
    let i = 0;
    let skippedFrom = -1; // first byte of the bytes before i that decode to nothing
    while (i < n) {
      const start = i;
      if ((data[i] as number) < 0x80 && !out.isSkipping && !isInString(this._state)) {
        const next = this._passAscii(i);
        if (next > i) {
          i = next;
          skippedFrom = -1;
          continue;
        }
      }
      const lead = data[i++] as number;
      let cp = lead;
      if (lead >= 0x80) {
        const need =
          lead >= 0xc0 && lead < 0xe0
            ? 1
            : lead >= 0xe0 && lead < 0xf0
              ? 2
              : lead >= 0xf0 && lead < 0xf8
                ? 3
                : 0;
        cp = lead & (need === 1 ? 0x1f : need === 2 ? 0x0f : 0x07);
        let got = 0;
        while (got < need && i < n && ((data[i] as number) & 0xc0) === 0x80) {
          cp = (cp << 6) | ((data[i++] as number) & 0x3f);
          got++;
        }
        if (got < need && i >= n) {
          // Held from its lead byte: bytes before it that decode to nothing may go now (left
          // open in the emulator's decoder, that lead byte closes them as it would have).
          this._held = data.slice(start);
          out.endRun(start);
          break;
        }
        // Cut short by a byte that starts afresh, or not a valid character: nothing.
        if (got < need || !isValid(cp, need)) cp = -1;
      }
      if (cp < 0) {
        if (skippedFrom < 0) skippedFrom = start;
        if (out.isSkipping) out.drop(start, i);
        else out.maybeCut(i);
        continue;
      }
      this._codePoint(cp, skippedFrom >= 0 ? skippedFrom : start, i);
      skippedFrom = -1;
    }
    if (i >= n && this._held.length === 0) out.endRun(n);
    this._data = EMPTY;
    this._buffer = EMPTY_BUFFER;
    return out.finish();
  }

  private _codePoint(cp: number, start: number, end: number): void {
    const out = this._out;
    const from = this._state;
    const step = transition(from, cp);
    const kind = step & 3;
    this._state = step >> 2;
    if (out.isSkipping) {
      if (isInString(this._state) && kind !== OPEN) {
        out.drop(start, end);
        return;
      }
      out.resume(start);
      // What ends the string is dropped with it; what starts something else passes.
      const passes = this._state !== GROUND || (cp >= 0x80 && cp <= 0x9f && cp !== 0x9c);
      if (!passes) {
        out.drop(start, end);
        return;
      }
    }
    if (kind === PRINT) {
      if (!this._cell.print(cp)) {
        out.dropMark(start, end);
        return;
      }
      if (this._cell.units > FLATTEN_AFTER_UNITS) out.hasLongCells = true;
    } else if (kind === BREAK) {
      if (cp === REP_FINAL && from !== GROUND && this._cell.units > FLATTEN_AFTER_UNITS) {
        out.hasLongCells = true; // REP repeats the cell before it
      }
      this._cell.width = 0;
    }
    if (kind === OPEN) this._stringBytes = 0;
    else if (isInString(this._state)) {
      this._stringBytes += end - start;
      if (this._stringBytes > this._maxStringBytes) {
        out.endRun(start);
        out.insert(CAN);
        out.skip();
        this._cell.width = 0;
        return;
      }
    }
    out.maybeCut(end);
  }

  /**
   * Passes a run of ASCII from `start` outside strings (ascii-run.ts) as far as the piece has
   * room, and returns where it stopped.
   */
  private _passAscii(start: number): number {
    const cell = this._cell;
    const stop = Math.min(this._data.length, start + Math.max(1, this._out.room(start)));
    const run = scanAsciiRun(
      this._data,
      this._buffer,
      this._isAscii,
      start,
      stop,
      this._state,
      cell.width,
      this._run,
    );
    if (run.repeatsCell && cell.units > FLATTEN_AFTER_UNITS) this._out.hasLongCells = true;
    this._state = run.state;
    cell.width = run.joinWidth;
    if (run.hasPrinted) {
      cell.units = 1;
      cell.isFull = false;
    }
    if (run.end > start) this._out.maybeCut(run.end);
    return run.end;
  }
}

function isValid(cp: number, need: number): boolean {
  if (need === 1) return cp >= 0x80;
  if (need === 2) return cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff) && cp !== 0xfeff;
  return cp >= 0x10000 && cp <= 0x10ffff;
}
