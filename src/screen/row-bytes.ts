/**
 * A normal-buffer row as UTF-8 bytes, exactly the text readCells gives for the whole row with
 * trailing whitespace trimmed: the form history rows are kept in (screen/transcript.ts). Reads
 * the raw cell words, writing bytes without building strings (history can scroll by millions of
 * rows); readRowText is the same through the public API, for when the internals differ.
 */

import { MAX_CELL_UNITS } from './cell-join.js';
import { readCells } from './lines.js';
import { makeTextSafe, safeCodePoint, truncateCodeUnits } from './text-safety.js';
import type { IBufferLine } from './xterm.js';
import type { CoreLine } from './xterm-core.js';

/** The most bytes one cell can take: MAX_CELL_UNITS UTF-16 units of 3 UTF-8 bytes each. */
export const MAX_CELL_BYTES = MAX_CELL_UNITS * 3;

// xterm's cell layout (buffer/Constants.ts of the pinned @xterm/headless).
const CODEPOINT_MASK = 0x1fffff;
const IS_COMBINED_MASK = 0x200000;
const HAS_CONTENT_MASK = 0x3fffff;
const WIDTH_SHIFT = 22;
/** The width bits of a one-cell character: `content ^ NARROW` is its code point. */
const NARROW = 1 << WIDTH_SHIFT;
const FG_INVISIBLE = 0x40000000;

/** The row's text as history keeps it, through the public API. */
export function readRowText(line: IBufferLine, cols: number): string {
  return readCells(line, 0, cols).trimEnd();
}

/**
 * Writes the first `cols` cells of `raw` into `out` from `at`, as readRowText would read them,
 * and returns the offset after the text. `out` must have cols × MAX_CELL_BYTES bytes from `at`.
 */
export function encodeRawRow(raw: CoreLine, cols: number, out: Buffer, at = 0): number {
  const data = raw._data;
  const width = Math.min(cols, raw.length, Math.floor(data.length / 3));
  // Cells after the last with content read as blanks, which trimming drops. Four cells at a
  // time first, from the end: most of a row is often blank. (The group's first word indexed by
  // the loop variable itself, checked >= 0, is what V8 compiles to the fastest loop here.)
  let k = width * 3 - 12;
  for (; k >= 0; k -= 12) {
    const group =
      (data[k] as number) |
      (data[k + 3] as number) |
      (data[k + 6] as number) |
      (data[k + 9] as number);
    if ((group & HAS_CONTENT_MASK) !== 0) break;
  }
  // Cells from k + 12 on are blank; the last with content is in the 4 cells before (or fewer).
  let stop = k + 12;
  while (stop > 0 && ((data[stop - 3] as number) & HAS_CONTENT_MASK) === 0) stop -= 3;
  let pos = at;
  let end = at;
  for (let i = 0; i < stop; i += 3) {
    const content = data[i] as number;
    // The common case first: a visible printable ASCII character one cell wide.
    const ascii = content ^ NARROW;
    if (ascii > 0x20 && ascii < 0x7f && ((data[i + 1] as number) & FG_INVISIBLE) === 0) {
      out[pos++] = ascii;
      end = pos;
    } else if (ascii === 0x20 || ascii === 0) {
      // A space, or an empty cell: a blank either way.
      out[pos++] = 0x20;
    } else {
      const start = pos;
      pos = encodeCell(raw, i / 3, width, out, pos);
      if (cellEnd > start) end = cellEnd;
    }
  }
  return end;
}

/** Where the text of the cell encodeCell wrote last ends once trimmed (its start when blank). */
let cellEnd = 0;

/** Writes cell `x` of `raw` at `pos` (any cell: wide, joined, concealed, blank, unsafe). */
function encodeCell(raw: CoreLine, x: number, width: number, out: Buffer, at: number): number {
  const content = raw._data[x * 3] as number;
  const w = content >> WIDTH_SHIFT;
  let pos = at;
  cellEnd = at;
  const cp = content & CODEPOINT_MASK;
  const combined = (content & IS_COMBINED_MASK) !== 0;
  const visible = ((raw._data[x * 3 + 1] as number) & FG_INVISIBLE) === 0;
  const text = combined
    ? makeTextSafe(truncateCodeUnits(raw._combined[x] ?? '', MAX_CELL_UNITS))
    : '';
  if (w === 0) {
    if (visible && (combined ? text !== '' : cp !== 0)) {
      // A combining mark in a cell of its own (lines.ts readCells): kept.
      pos = combined
        ? pos + out.write(text, pos, 'utf8')
        : writeCodePoint(out, pos, safeCodePoint(cp));
      cellEnd = pos;
    } else if (x === 0) {
      // The second half of a wide character; only a row that starts with one reads a blank.
      out[pos++] = 0x20;
    }
    return pos;
  }
  if ((combined ? text === '' : cp === 0) || !visible || x + w > width) {
    for (let k = Math.min(w, width - x); k > 0; k--) out[pos++] = 0x20;
  } else if (combined) {
    pos += out.write(text, pos, 'utf8');
    const kept = text.trimEnd();
    if (kept.length === text.length) cellEnd = pos;
    else if (kept.length > 0) cellEnd = at + Buffer.byteLength(kept, 'utf8');
  } else {
    const code = safeCodePoint(cp);
    pos = writeCodePoint(out, pos, code);
    if (!isTrimmedSpace(code)) cellEnd = pos;
  }
  return pos;
}

/** Writes `code` as UTF-8 at `pos`; returns the position after it. */
function writeCodePoint(out: Buffer, pos: number, code: number): number {
  if (code < 0x80) {
    out[pos] = code;
    return pos + 1;
  }
  if (code < 0x800) {
    out[pos] = 0xc0 | (code >> 6);
    out[pos + 1] = 0x80 | (code & 0x3f);
    return pos + 2;
  }
  if (code < 0x10000) {
    out[pos] = 0xe0 | (code >> 12);
    out[pos + 1] = 0x80 | ((code >> 6) & 0x3f);
    out[pos + 2] = 0x80 | (code & 0x3f);
    return pos + 3;
  }
  out[pos] = 0xf0 | (code >> 18);
  out[pos + 1] = 0x80 | ((code >> 12) & 0x3f);
  out[pos + 2] = 0x80 | ((code >> 6) & 0x3f);
  out[pos + 3] = 0x80 | (code & 0x3f);
  return pos + 4;
}

/**
 * Whether String.prototype.trimEnd removes `code`, among code points safe text can hold (its
 * line terminators and U+FEFF have become stand-ins): the space separators.
 */
function isTrimmedSpace(code: number): boolean {
  return (
    code === 0x20 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}
