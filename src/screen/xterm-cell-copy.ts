/**
 * A faster copy of cells between buffer lines, in place of the one xterm's reflow calls
 * (BufferLine.copyCellsFrom), installed once when a line has the expected shape; otherwise
 * xterm's own stays. xterm.ts installs it on the first terminal it creates.
 */
import { core } from './xterm-core.js';

// xterm's cell layout (buffer/Constants.ts of the pinned @xterm/headless), as row-bytes.ts reads it.
const IS_COMBINED_MASK = 0x200000;
const BG_HAS_EXTENDED = 0x10000000;

/** A buffer line as BufferLine.copyCellsFrom sees it. */
export interface CopyLine {
  _data: Uint32Array;
  _combined: Record<number, string>;
  _extendedAttrs: Record<number, unknown>;
}

export type CopyCells = (
  this: CopyLine,
  src: CopyLine,
  srcCol: number,
  destCol: number,
  length: number,
  applyInReverse: boolean,
) => void;

/** xterm's own BufferLine.copyCellsFrom, once replaced (for tests); undefined before. */
export let xtermCopyCellsFrom: CopyCells | undefined;

/**
 * BufferLine.copyCellsFrom of xterm 6.0.0 moves every combined character (a character with its
 * joined marks) of the source line from the first copied cell to the line's end, not only those
 * of the cells it copies. Reflow calls it for each piece of a rewrapped row, so rewrapping rows of
 * accented text costs columns² per row and leaves each new line holding entries for cells it does
 * not have: 200 rows of 500 decomposed accents narrowed to 2 columns took 6 s and 290 MB. This
 * copy moves each copied cell's words, and its combined character and extended attributes when
 * the cell has them, in the order asked (a copy within one line may overlap): the same cells.
 */
export const copyCells: CopyCells = function (this, src, srcCol, destCol, length, applyInReverse) {
  const from = src._data;
  const to = this._data;
  const step = applyInReverse ? -1 : 1;
  for (let k = 0, cell = applyInReverse ? length - 1 : 0; k < length; k++, cell += step) {
    const s = (srcCol + cell) * 3;
    const d = (destCol + cell) * 3;
    const content = from[s] as number;
    const fg = from[s + 1] as number;
    const bg = from[s + 2] as number;
    to[d] = content;
    to[d + 1] = fg;
    to[d + 2] = bg;
    if (bg & BG_HAS_EXTENDED)
      this._extendedAttrs[destCol + cell] = src._extendedAttrs[srcCol + cell];
    if (content & IS_COMBINED_MASK) {
      this._combined[destCol + cell] = src._combined[srcCol + cell] as string;
    }
  }
};

let isCellCopyChecked = false;

/**
 * Replaces BufferLine.copyCellsFrom (above) when a line of `term` (a headless Terminal) has the
 * expected shape; looks once, at the first terminal.
 */
export function installCellCopy(term: object): void {
  if (isCellCopyChecked) return;
  isCellCopyChecked = true;
  const line = core(term)?._bufferService?.buffers?.normal?.lines?.get?.(0) as
    | Partial<CopyLine>
    | undefined;
  const proto = line ? (Object.getPrototypeOf(line) as { copyCellsFrom?: unknown }) : undefined;
  if (
    !proto ||
    typeof proto.copyCellsFrom !== 'function' ||
    proto.copyCellsFrom.length !== 5 ||
    !(line?._data instanceof Uint32Array) ||
    typeof line._combined !== 'object' ||
    typeof line._extendedAttrs !== 'object'
  ) {
    return;
  }
  xtermCopyCellsFrom = proto.copyCellsFrom as CopyCells;
  proto.copyCellsFrom = copyCells;
}
