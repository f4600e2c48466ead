/**
 * Bounds the work of a narrowing resize. The emulator rewraps every line of its buffer at the new
 * width and only then drops, from the top, what the buffer cannot hold: 400 rows of 500 columns
 * narrowed to 2 make 100 000 lines, of which 400 stay. And when the lines of one rewrapped line
 * run past the top of the buffer, xterm 6.0.0 writes the rest over the buffer's last lines (its
 * screen). planNarrowing finds, from the bottom, the rows whose rewrapped lines are certain to fit
 * with a row to spare; the rows above them are copied to history (those not there yet) and
 * blanked, so the emulator does not rewrap them, and drops them as the rewrapped lines need room.
 * Pure.
 * @see ../../spec/tools.md (terminal_resize)
 */
import type { CoreLine } from './xterm-core.js';

// xterm's cell layout (buffer/Constants.ts of the pinned @xterm/headless).
const HAS_CONTENT_MASK = 0x3fffff;
const WIDTH_SHIFT = 22;

/** The lines of the buffer, history first, as the plan reads them. */
export interface NarrowingRows {
  readonly length: number;
  /** Whether line y continues the line above it (the text wrapped onto it). */
  isWrapped(y: number): boolean;
  /**
   * The cells of line y that rewrapping moves: its trimmed length when it is the last row of its
   * line (`isLast`), else the old width, one less when a wide character that did not fit at its
   * end starts the next row (as xterm's getWrappedLineTrimmedLength counts them).
   */
  cells(y: number, isLast: boolean): number;
  /** Wide characters on line y. */
  wides(y: number): number;
}

export interface NarrowingPlan {
  /** Rows before this one are blanked (after copying to history those not there yet). */
  readonly blankBefore: number;
  /** Whether row blankBefore continues a line, and must start one instead (a cut inside a line). */
  readonly unwrap: boolean;
}

/** Lines that rewrapping `cells` cells with `wides` wide characters makes: at least, at most. */
function newRows(cells: number, wides: number, newCols: number): [number, number] {
  // Every new row holds newCols cells but the last, or one less where a wide character would not
  // fit at its end.
  return [
    Math.max(1, Math.ceil(cells / newCols)),
    Math.max(1, Math.ceil((cells + wides) / newCols)),
  ];
}

/**
 * The plan for rewrapping `rows` at `newCols` into a buffer of `maxLength` lines whose screen is
 * `screenRows` high, the cursor on line `cursorLine` (its line is not rewrapped: xterm leaves it to
 * the program). The rows from blankBefore on make at most maxLength - 1 lines, so they all stay and
 * the blanked rows above take the cut; a cut inside a line falls, where it can, where a new row of
 * the whole line would start, so the rows kept break as they would have.
 */
export function planNarrowing(
  rows: NarrowingRows,
  newCols: number,
  maxLength: number,
  screenRows: number,
  cursorLine: number,
): NarrowingPlan {
  const budget = maxLength - 1;
  let most = 0;
  let fewest = 0;
  for (let end = rows.length - 1; end >= 0; ) {
    let start = end;
    while (start > 0 && rows.isWrapped(start)) start--;
    const isCursorLine = cursorLine >= start && cursorLine <= end;
    const isRewrapped =
      !isCursorLine && (start !== end || rows.isWrapped(start) || rows.cells(end, true) > newCols);
    let size: [number, number] = [end - start + 1, end - start + 1];
    if (isRewrapped) {
      let cells = 0;
      let wides = 0;
      for (let y = start; y <= end; y++) {
        cells += rows.cells(y, y === end);
        wides += rows.wides(y);
      }
      size = newRows(cells, wides, newCols);
    }
    if (most + size[1] > budget) {
      const cut = isRewrapped
        ? cutInside(rows, start, end, newCols, budget - most, screenRows - fewest)
        : end + 1;
      return { blankBefore: cut, unwrap: cut > start && cut <= end };
    }
    fewest += size[0];
    most += size[1];
    end = start - 1;
  }
  return { blankBefore: 0, unwrap: false };
}

/**
 * The first row of the line [start, end] from which the rest of it makes at most `room` lines
 * (end + 1 when none): the first such row where a new row of the whole line starts, when the rest
 * from there still makes `fill` lines, else the first such row.
 */
function cutInside(
  rows: NarrowingRows,
  start: number,
  end: number,
  newCols: number,
  room: number,
  fill: number,
): number {
  const offsets: number[] = [];
  const cells: number[] = [];
  const wides: number[] = [];
  let total = 0;
  for (let y = start; y <= end; y++) {
    offsets.push(total);
    cells.push(rows.cells(y, y === end));
    wides.push(rows.wides(y));
    total += cells[cells.length - 1] as number;
  }
  // From the end up: the lines the rows from y on make, while they fit.
  let restCells = 0;
  let restWides = 0;
  let first = end + 1;
  const fewestFrom: number[] = [];
  for (let y = end; y > start; y--) {
    const cellsFrom = restCells + (cells[y - start] as number);
    const widesFrom = restWides + (wides[y - start] as number);
    const [fewest, most] = newRows(cellsFrom, widesFrom, newCols);
    if (most > room) break;
    restCells = cellsFrom;
    restWides = widesFrom;
    fewestFrom[y - start] = fewest;
    first = y;
  }
  for (let y = first; y <= end && y < first + newCols; y++) {
    const isAligned = (offsets[y - start] as number) % newCols === 0;
    if (isAligned && (fewestFrom[y - start] as number) >= fill) return y;
  }
  return first;
}

/** NarrowingRows over raw lines of `oldCols` cells (lines[y] undefined reads as empty). */
export function rawNarrowingRows(
  length: number,
  line: (y: number) => (CoreLine & { isWrapped: boolean }) | undefined,
  oldCols: number,
): NarrowingRows {
  return {
    length,
    isWrapped: (y) => line(y)?.isWrapped === true,
    cells(y, isLast) {
      const raw = line(y);
      if (!raw) return 0;
      if (isLast) return trimmedLength(raw);
      const last = raw._data[(oldCols - 1) * 3] as number;
      const next = line(y + 1)?._data[0] ?? 0;
      const endsInNull = (last & HAS_CONTENT_MASK) === 0 && last >>> WIDTH_SHIFT === 1;
      return endsInNull && next >>> WIDTH_SHIFT === 2 ? oldCols - 1 : oldCols;
    },
    wides(y) {
      const data = line(y)?._data;
      let count = 0;
      if (!data) return count;
      for (let i = 0; i < data.length; i += 3)
        if ((data[i] as number) >>> WIDTH_SHIFT === 2) count++;
      return count;
    },
  };
}

/** BufferLine.getTrimmedLength: cells up to the end of the last one with content. */
function trimmedLength(raw: CoreLine): number {
  const data = raw._data;
  for (let i = Math.min(raw.length, data.length / 3) - 1; i >= 0; i--) {
    const content = data[i * 3] as number;
    if (content & HAS_CONTENT_MASK) return i + (content >>> WIDTH_SHIFT);
  }
  return 0;
}
