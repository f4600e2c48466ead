/**
 * Bounds what program output can make the emulator hold, before the output reaches it: a cell
 * keeps at most MAX_CELL_UNITS UTF-16 units (its character and the combining marks that join it;
 * the rest of the run is dropped), and an OSC, DCS, SOS, PM or APC string carries at most
 * MAX_STRING_BYTES (a longer one is cancelled with CAN and dropped up to its end). Everything
 * else passes byte for byte. The filter decodes UTF-8 and follows the parser's state exactly as
 * the emulator does (parser-state.ts), and cuts its output only between code points, so the
 * emulator never has to carry a partial character from one write to the next. ASCII outside
 * strings, most output, steps the state without decoding, and text between escapes is found
 * with a native search. Pure.
 * @see ../../spec/guarantees.md#guarantees (11)
 */
import { Buffer, isAscii } from 'node:buffer';
import {
  BREAK,
  GROUND,
  isInString,
  OPEN,
  type ParserState,
  PRINT,
  transition,
} from './parser-state.js';

/** Most UTF-16 units a cell keeps; snapshots show no more (lines.ts cellChars). */
export const MAX_CELL_UNITS = 32;
/** Most payload bytes of one OSC, DCS, SOS, PM or APC string. */
export const MAX_STRING_BYTES = 64 * 1024;
/**
 * Largest piece handed to the emulator in one write: @xterm/headless decodes a longer write in
 * slices of this size, and a slice boundary inside a character can mis-decode it (its decoder
 * loses a carried-over continuation byte 0x80, as in the middle of U+201C).
 */
export const MAX_PIECE_BYTES = 128 * 1024;
/**
 * A cell longer than this is built by V8 as a chain of one small string per mark (about 56
 * bytes each) unless it is flattened: pieces that make one say so.
 */
export const FLATTEN_AFTER_UNITS = 12;

const CAN = Uint8Array.of(0x18);
const NOT_UTF8 = Uint8Array.of(0xff);
const EMPTY = new Uint8Array(0);
const EMPTY_BUFFER = Buffer.alloc(0);
const REP_FINAL = 0x62;

export interface OutputFilterOptions {
  /** Cells a code point takes, by the emulator's own Unicode tables: 0 joins the cell before. */
  readonly widthOf: (cp: number) => number;
  readonly maxCellUnits?: number;
  readonly maxStringBytes?: number;
  readonly maxPieceBytes?: number;
}

export interface FilteredPiece {
  readonly bytes: Uint8Array;
  /** Whether a cell of more than FLATTEN_AFTER_UNITS units may have been written. */
  readonly hasLongCells: boolean;
}

export class OutputFilter {
  private readonly _widthOf: (cp: number) => number;
  private readonly _maxCellUnits: number;
  private readonly _maxStringBytes: number;
  private readonly _maxPieceBytes: number;
  private _held: Uint8Array = EMPTY;
  private _state: ParserState = GROUND;
  /** Width of the cell that zero-width characters join now; 0 when they would not join. */
  private _joinWidth = 0;
  private _cellUnits = 0;
  private _isCellFull = false;
  private _stringBytes = 0;
  private _isDropping = false;
  // Output of the push under way.
  private _data: Uint8Array = EMPTY;
  /** `_data` as a Buffer, for a native search. */
  private _buffer: Buffer = EMPTY_BUFFER;
  /** `_data` is all ASCII: text between escapes needs no byte-by-byte look. */
  private _isAscii = false;
  private _pieces: FilteredPiece[] = [];
  private _parts: Uint8Array[] = [];
  private _partsBytes = 0;
  private _runStart = 0;
  private _hasLongCells = false;

  constructor(options: OutputFilterOptions) {
    this._widthOf = options.widthOf;
    this._maxCellUnits = options.maxCellUnits ?? MAX_CELL_UNITS;
    this._maxStringBytes = options.maxStringBytes ?? MAX_STRING_BYTES;
    this._maxPieceBytes = Math.max(8, options.maxPieceBytes ?? MAX_PIECE_BYTES);
  }

  /** The parser state the emulator is in after everything passed so far. */
  get state(): ParserState {
    return this._isDropping ? GROUND : this._state;
  }

  /** The start of a character not yet complete, held back until the rest arrives. */
  get held(): Uint8Array {
    return this._held;
  }

  /** Filters the next chunk of output into pieces to write to the emulator in order. */
  push(chunk: Uint8Array): FilteredPiece[] {
    const data = this._held.length === 0 ? chunk : concat([this._held, chunk]);
    this._held = EMPTY;
    this._data = data;
    this._buffer = Buffer.from(data.buffer, data.byteOffset, data.length);
    this._isAscii = isAscii(data);
    this._runStart = 0;
    const n = data.length;
    let i = 0;
    let skippedFrom = -1; // first byte of the bytes before i that decode to nothing
    while (i < n) {
      const start = i;
      if ((data[i] as number) < 0x80 && !this._isDropping && !isInString(this._state)) {
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
          this._endRun(start);
          break;
        }
        // Cut short by a byte that starts afresh, or not a valid character: nothing.
        if (got < need || !isValid(cp, need)) cp = -1;
      }
      if (cp < 0) {
        if (skippedFrom < 0) skippedFrom = start;
        if (this._isDropping) this._drop(start, i);
        else this._maybeCut(i);
        continue;
      }
      this._codePoint(cp, skippedFrom >= 0 ? skippedFrom : start, i);
      skippedFrom = -1;
    }
    if (i >= n && this._held.length === 0) this._endRun(n);
    return this._finish();
  }

  private _codePoint(cp: number, start: number, end: number): void {
    const from = this._state;
    const step = transition(from, cp);
    const kind = step & 3;
    this._state = step >> 2;
    if (this._isDropping) {
      if (isInString(this._state) && kind !== OPEN) {
        this._drop(start, end);
        return;
      }
      this._isDropping = false;
      // What ends the string is dropped with it; what starts something else passes.
      const passes = this._state !== GROUND || (cp >= 0x80 && cp <= 0x9f && cp !== 0x9c);
      if (!passes) {
        this._drop(start, end);
        return;
      }
      this._runStart = start;
    }
    if (kind === PRINT) {
      if (!this._print(cp)) {
        this._dropMark(start, end);
        return;
      }
    } else if (kind === BREAK) {
      if (cp === REP_FINAL && from !== GROUND && this._cellUnits > FLATTEN_AFTER_UNITS) {
        this._hasLongCells = true; // REP repeats the cell before it
      }
      this._joinWidth = 0;
    }
    if (kind === OPEN) this._stringBytes = 0;
    else if (isInString(this._state)) {
      this._stringBytes += end - start;
      if (this._stringBytes > this._maxStringBytes) {
        this._endRun(start);
        this._parts.push(CAN);
        this._partsBytes += 1;
        this._isDropping = true;
        this._runStart = -1;
        this._joinWidth = 0;
        return;
      }
    }
    this._maybeCut(end);
  }

  /**
   * Passes a run of ASCII from `start` outside strings (text, controls, escape and control
   * sequences: what most output is), as far as the piece has room, stepping the parser state as
   * _codePoint would without decoding; stops before a byte that opens a string, and returns where
   * it stopped.
   */
  private _passAscii(start: number): number {
    const data = this._data;
    const kept = this._runStart >= 0 ? start - this._runStart : 0;
    const room = this._maxPieceBytes - 5 - this._partsBytes - kept;
    const stop = Math.min(data.length, start + Math.max(1, room));
    let state = this._state;
    let joinWidth = this._joinWidth;
    let hasPrinted = false;
    let i = start;
    while (i < stop) {
      if (state === GROUND && this._isAscii) {
        // Up to the next ESC every byte keeps the parser in GROUND, and only the last printable
        // character and what follows it matter. A short run is looked through here (the
        // native search costs a call), a longer one searched.
        const near = Math.min(stop, i + 32);
        let end = i;
        while (end < near && data[end] !== 0x1b) end++;
        if (end === near && end < stop) {
          // Searched up to `stop` only: a push may hold many pieces' worth without an ESC.
          const esc = this._buffer.subarray(end, stop).indexOf(0x1b);
          end = esc < 0 ? stop : end + esc;
        }
        if (end > i) {
          let k = end - 1;
          while (k > i && !isPrintable(data[k] as number)) k--;
          if (isPrintable(data[k] as number)) {
            hasPrinted = true;
            joinWidth = k === end - 1 ? 1 : 0;
          } else joinWidth = 0;
          i = end;
          if (i === stop) break;
        }
      }
      if (state === GROUND && isPrintable(data[i] as number)) {
        // Printable ASCII takes a cell of its own: zero-width characters would join it.
        hasPrinted = true;
        joinWidth = 1;
        i++;
        while (i < stop && isPrintable(data[i] as number)) i++;
        if (i === stop) break;
      }
      const byte = data[i] as number;
      if (byte >= 0x80) break;
      const step = transition(state, byte);
      const next = step >> 2;
      const kind = step & 3;
      if (kind === OPEN || isInString(next)) break;
      if (kind === BREAK) {
        // REP repeats the cell before it (one unit when this run printed it).
        if (byte === REP_FINAL && state !== GROUND && !hasPrinted) {
          if (this._cellUnits > FLATTEN_AFTER_UNITS) this._hasLongCells = true;
        }
        joinWidth = 0;
      }
      state = next;
      i++;
    }
    this._state = state;
    this._joinWidth = joinWidth;
    if (hasPrinted) {
      this._cellUnits = 1;
      this._isCellFull = false;
    }
    if (i > start) this._maybeCut(i);
    return i;
  }

  /** Tracks the cell that zero-width characters join; false when `cp` is to be dropped. */
  private _print(cp: number): boolean {
    const units = cp > 0xffff ? 2 : 1;
    const width = cp < 0x7f ? 1 : this._widthOf(cp);
    if (width > 0 || this._joinWidth === 0) {
      this._joinWidth = width;
      this._cellUnits = units;
      this._isCellFull = false;
      return true;
    }
    if (this._isCellFull || this._cellUnits + units > this._maxCellUnits) {
      this._isCellFull = true;
      return false;
    }
    this._cellUnits += units;
    if (this._cellUnits > FLATTEN_AFTER_UNITS) this._hasLongCells = true;
    return true;
  }

  /**
   * Leaves a joined mark out, with the bytes before it that decode to nothing. When those went
   * out already (the piece was cut before the mark), the mark's place takes one byte that is no
   * UTF-8 (0xff), so that they still end where they ended and decode to nothing as before.
   */
  private _dropMark(start: number, end: number): void {
    if (start < this._runStart) {
      this._endRun(this._runStart);
      this._parts.push(NOT_UTF8);
      this._partsBytes += 1;
    }
    this._drop(start, end);
  }

  /** Leaves bytes [start, end) out of the output. */
  private _drop(start: number, end: number): void {
    this._endRun(start);
    this._runStart = this._isDropping ? -1 : end;
  }

  /** Closes the kept run of input bytes at `end`. */
  private _endRun(end: number): void {
    if (this._runStart >= 0 && end > this._runStart) {
      this._parts.push(this._data.subarray(this._runStart, end));
      this._partsBytes += end - this._runStart;
    }
    this._runStart = this._isDropping ? -1 : end;
  }

  /** Ends the piece at `end` (a place between characters) when it is about full. */
  private _maybeCut(end: number): void {
    const kept = this._runStart >= 0 ? end - this._runStart : 0;
    // The next character takes at most 4 bytes, and a CAN may come before it.
    if (this._partsBytes + kept + 5 <= this._maxPieceBytes) return;
    this._endRun(end);
    this._flushPiece();
  }

  private _flushPiece(): void {
    if (this._partsBytes === 0) return;
    const bytes = this._parts.length === 1 ? (this._parts[0] as Uint8Array) : concat(this._parts);
    this._pieces.push({ bytes, hasLongCells: this._hasLongCells });
    this._parts = [];
    this._partsBytes = 0;
    this._hasLongCells = false;
  }

  private _finish(): FilteredPiece[] {
    this._flushPiece();
    const pieces = this._pieces;
    this._pieces = [];
    this._data = EMPTY;
    this._buffer = EMPTY_BUFFER;
    return pieces;
  }
}

function isPrintable(byte: number): boolean {
  return byte >= 0x20 && byte < 0x7f;
}

function isValid(cp: number, need: number): boolean {
  if (need === 1) return cp >= 0x80;
  if (need === 2) return cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff) && cp !== 0xfeff;
  return cp >= 0x10000 && cp <= 0x10ffff;
}

function concat(parts: Uint8Array[]): Uint8Array {
  let size = 0;
  for (const p of parts) size += p.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
