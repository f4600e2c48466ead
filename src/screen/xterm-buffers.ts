/**
 * The emulator's buffers as agent-tty reads them beyond the public API: a line's raw cells, the
 * normal buffer with its markers and trim events (what copying history rows needs at full speed),
 * lines a narrowing resize writes, and flattening long combined strings. Each read is
 * shape-checked (xterm-core.ts) and gives undefined when the internals are not as expected.
 */
import type { IDisposable, Terminal } from './xterm.js';
import { asRawLine, type CoreLine, type CoreLines, core } from './xterm-core.js';

/** The emulator's normal buffer, internal: what copying history rows needs at full speed. */
export interface NormalBuffer {
  /** Lines of history above the screen (the public baseY). */
  readonly ybase: number;
  readonly lines: {
    readonly length: number;
    get(i: number): unknown;
    onTrim(listener: (count: number) => void): IDisposable;
  };
  /** A marker on line `y` (history first), tracked through scrolling, trimming and reflow. */
  addMarker(y: number): LineMarker;
  /** A blank cell in the default style (what a cleared cell holds); checked where used. */
  readonly getNullCell?: unknown;
}

/** A line of the normal buffer tracked through scrolling, trimming and reflow. */
export interface LineMarker {
  /** Index in the normal buffer's lines (history first); -1 once disposed. */
  readonly line: number;
  readonly isDisposed: boolean;
  dispose(): void;
}

/** The emulator's pair of buffers, internal: the same object for the terminal's life. */
export interface BufferSet {
  /** The normal buffer now: a reset (RIS) replaces it. */
  readonly normal: unknown;
}

/** A normal-buffer line a narrowing resize may clear or make start a line, internal. */
export interface WritableLine extends CoreLine {
  isWrapped: boolean;
  /** Sets every cell to `cell` (from NormalBuffer.getNullCell), dropping combined characters. */
  fill(cell: unknown): void;
}

/**
 * The raw cell words of absolute line `y` of the active buffer (3 per cell: content, foreground,
 * background) and its combined characters, or undefined when the internals are not as expected.
 */
export function rawLine(term: Terminal, y: number): CoreLine | undefined {
  const line = core(term)?.buffer?.lines?.get(y) as Partial<CoreLine> | undefined;
  if (!line || !(line._data instanceof Uint32Array) || typeof line.length !== 'number') {
    return undefined;
  }
  return line as CoreLine;
}

/** The terminal's buffer set, or undefined when the internals are not as expected. */
export function bufferSet(term: Terminal): BufferSet | undefined {
  const buffers = core(term)?._bufferService?.buffers;
  return buffers && 'normal' in buffers ? (buffers as BufferSet) : undefined;
}

/**
 * The normal buffer as it is now (a reset replaces it, so callers compare identities), also while
 * the alternate buffer is active; undefined when the internals are not as expected.
 */
export function normalBuffer(term: Terminal): NormalBuffer | undefined {
  const normal = core(term)?._bufferService?.buffers?.normal as Partial<NormalBuffer> | undefined;
  const lines = normal?.lines as Partial<NormalBuffer['lines']> | undefined;
  if (
    typeof normal?.ybase !== 'number' ||
    typeof normal.addMarker !== 'function' ||
    typeof lines?.get !== 'function' ||
    typeof lines.onTrim !== 'function' ||
    typeof lines.length !== 'number'
  ) {
    return undefined;
  }
  return normal as NormalBuffer;
}

/** `line` (from NormalBuffer.lines.get) as a writable line, or undefined when it is not one. */
export function asWritableLine(line: unknown): WritableLine | undefined {
  const raw = asRawLine(line) as Partial<WritableLine> | undefined;
  if (!raw || typeof raw.isWrapped !== 'boolean' || typeof raw.fill !== 'function') {
    return undefined;
  }
  return raw as WritableLine;
}

/**
 * Flattens the long combined strings (a character with its joined marks) of the last `lines`
 * lines of the normal buffer and of every line of the alternate one. xterm appends each mark to
 * the cell's string, which V8 keeps as a chain of one small string per mark (about 56 bytes each,
 * against 2 flattened); reading a character of the string makes V8 flatten it in place.
 */
export function flattenLongCells(term: Terminal, lines: number, minUnits: number): number {
  const buffers = core(term)?._bufferService?.buffers;
  return (
    flattenLines(buffers?.normal?.lines, lines, minUnits) +
    flattenLines(buffers?.alt?.lines, Number.POSITIVE_INFINITY, minUnits)
  );
}

/** Returns a sum of the characters read, so that no optimizer can leave the reads out. */
function flattenLines(lines: CoreLines | undefined, count: number, minUnits: number): number {
  let sum = 0;
  if (!lines || typeof lines.length !== 'number' || typeof lines.get !== 'function') return sum;
  const total = lines.length;
  for (let y = Math.max(0, total - count); y < total; y++) {
    const combined = (lines.get(y) as Partial<CoreLine> | undefined)?._combined;
    if (!combined || typeof combined !== 'object') continue;
    for (const key in combined) {
      const chars = combined[key as unknown as number];
      if (typeof chars === 'string' && chars.length > minUnits) sum += chars.charCodeAt(0);
    }
  }
  return sum;
}
