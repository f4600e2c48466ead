/**
 * The cell that zero-width characters join: its width and UTF-16 units, and the bound on what it
 * keeps (MAX_CELL_UNITS: its character and the combining marks that join it; later marks are
 * dropped). The output filter (output-filter.ts) steps it for every character it passes. Pure.
 * @see ../../spec/guarantees.md#guarantees (11)
 */

/** Most UTF-16 units a cell keeps; snapshots show no more (lines.ts cellChars). */
export const MAX_CELL_UNITS = 32;
/**
 * A cell longer than this is built by V8 as a chain of one small string per mark (about 56
 * bytes each) unless it is flattened: pieces that make one say so.
 */
export const FLATTEN_AFTER_UNITS = 12;

export class CellJoin {
  /** Width of the cell that zero-width characters join now; 0 when they would not join. */
  width = 0;
  /** UTF-16 units the cell holds. */
  units = 0;
  /** A mark was dropped from the cell: every later one is too. */
  isFull = false;
  private readonly _widthOf: (cp: number) => number;
  private readonly _maxUnits: number;

  /**
   * `widthOf`: cells a code point takes, by the emulator's own Unicode tables (0 joins the cell
   * before); `maxUnits`: most units a cell keeps.
   */
  constructor(widthOf: (cp: number) => number, maxUnits = MAX_CELL_UNITS) {
    this._widthOf = widthOf;
    this._maxUnits = maxUnits;
  }

  /** Steps the cell over printed code point `cp`; false when `cp` is a mark to drop. */
  print(cp: number): boolean {
    const units = cp > 0xffff ? 2 : 1;
    const width = cp < 0x7f ? 1 : this._widthOf(cp);
    if (width > 0 || this.width === 0) {
      this.width = width;
      this.units = units;
      this.isFull = false;
      return true;
    }
    if (this.isFull || this.units + units > this._maxUnits) {
      this.isFull = true;
      return false;
    }
    this.units += units;
    return true;
  }
}
