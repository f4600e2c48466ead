/**
 * The output filter's pieces: the bytes it keeps of one push, as runs of the input with bytes
 * left out or put in, cut into pieces of at most MAX_PIECE_BYTES between characters, each written
 * to the emulator in one write. What to keep is output-filter.ts's. Pure.
 */

/**
 * Largest piece handed to the emulator in one write: @xterm/headless decodes a longer write in
 * slices of this size, and a slice boundary inside a character can mis-decode it (its decoder
 * loses a carried-over continuation byte 0x80, as in the middle of U+201C).
 */
export const MAX_PIECE_BYTES = 128 * 1024;

const NOT_UTF8 = Uint8Array.of(0xff);
const EMPTY = new Uint8Array(0);

export interface FilteredPiece {
  readonly bytes: Uint8Array;
  /** Whether a cell of more than FLATTEN_AFTER_UNITS units may have been written. */
  readonly hasLongCells: boolean;
}

export class PieceBuilder {
  /** Input is left out until resume(): the run kept is closed, none starts. */
  isSkipping = false;
  /** Whether the piece being built may write a cell of more than FLATTEN_AFTER_UNITS units. */
  hasLongCells = false;
  private readonly _maxPieceBytes: number;
  private _data: Uint8Array = EMPTY;
  private _pieces: FilteredPiece[] = [];
  private _parts: Uint8Array[] = [];
  private _partsBytes = 0;
  /** Start of the run of input kept, or -1 while skipping. */
  private _runStart = 0;

  constructor(maxPieceBytes = MAX_PIECE_BYTES) {
    this._maxPieceBytes = Math.max(8, maxPieceBytes);
  }

  /** Starts on the input of a push, as a run from its first byte (closed at once if skipping). */
  begin(data: Uint8Array): void {
    this._data = data;
    this._runStart = 0;
  }

  /** Room left in the piece for input from `start` on, leaving room for a character and a CAN. */
  room(start: number): number {
    const kept = this._runStart >= 0 ? start - this._runStart : 0;
    return this._maxPieceBytes - 5 - this._partsBytes - kept;
  }

  /** Closes the kept run of input bytes at `end`. */
  endRun(end: number): void {
    if (this._runStart >= 0 && end > this._runStart) {
      this._parts.push(this._data.subarray(this._runStart, end));
      this._partsBytes += end - this._runStart;
    }
    this._runStart = this.isSkipping ? -1 : end;
  }

  /** Puts `bytes` in after the run kept so far (closed before). */
  insert(bytes: Uint8Array): void {
    this._parts.push(bytes);
    this._partsBytes += bytes.length;
  }

  /** Leaves bytes [start, end) out of the output. */
  drop(start: number, end: number): void {
    this.endRun(start);
    this._runStart = this.isSkipping ? -1 : end;
  }

  /**
   * Leaves a joined mark out, with the bytes before it that decode to nothing. When those went
   * out already (the piece was cut before the mark), the mark's place takes one byte that is no
   * UTF-8 (0xff), so that they still end where they ended and decode to nothing as before.
   */
  dropMark(start: number, end: number): void {
    if (start < this._runStart) {
      this.endRun(this._runStart);
      this.insert(NOT_UTF8);
    }
    this.drop(start, end);
  }

  /** Leaves input out from here (the run kept is closed first) until resume(). */
  skip(): void {
    this.isSkipping = true;
    this._runStart = -1;
  }

  /** Keeps input again from `start`. */
  resume(start: number): void {
    this.isSkipping = false;
    this._runStart = start;
  }

  /** Ends the piece at `end` (a place between characters) when it is about full. */
  maybeCut(end: number): void {
    const kept = this._runStart >= 0 ? end - this._runStart : 0;
    // The next character takes at most 4 bytes, and a CAN may come before it.
    if (this._partsBytes + kept + 5 <= this._maxPieceBytes) return;
    this.endRun(end);
    this._flushPiece();
  }

  /** The pieces of the push (its last run closed before). */
  finish(): FilteredPiece[] {
    this._flushPiece();
    const pieces = this._pieces;
    this._pieces = [];
    this._data = EMPTY;
    return pieces;
  }

  private _flushPiece(): void {
    if (this._partsBytes === 0) return;
    const bytes = this._parts.length === 1 ? (this._parts[0] as Uint8Array) : concat(this._parts);
    this._pieces.push({ bytes, hasLongCells: this.hasLongCells });
    this._parts = [];
    this._partsBytes = 0;
    this.hasLongCells = false;
  }
}

/** `parts` end to end in one array. */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
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
