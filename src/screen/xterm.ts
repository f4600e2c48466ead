/**
 * The only import of @xterm/headless and its Unicode 11 addon. Creates the emulator, reads the
 * few facts its public API does not expose (cursor visibility, a line's raw cell words for
 * fingerprinting and history) and replaces the one internal that rewrapping rows needs faster
 * (copyCellsFrom). @xterm/headless is pinned exactly, and each internal read is shape-checked
 * with a public-API fallback, so a changed internal degrades speed, never correctness.
 */
import unicode11 from '@xterm/addon-unicode11';
import headless from '@xterm/headless';

export type Terminal = headless.Terminal;
export type IBufferCell = headless.IBufferCell;
export type IBufferLine = headless.IBufferLine;
export type IDisposable = headless.IDisposable;

export interface CreateTerminalOptions {
  readonly cols: number;
  readonly rows: number;
  readonly scrollback: number;
}

/**
 * The Unicode 11 width tables, taken from the addon through the registration call it makes on
 * activation, so the output filter and every terminal share one provider.
 */
const unicodeProvider = ((): headless.IUnicodeVersionProvider => {
  let provider: headless.IUnicodeVersionProvider | undefined;
  const registrar = {
    unicode: { register: (p: headless.IUnicodeVersionProvider) => (provider = p) },
  };
  new unicode11.Unicode11Addon().activate(registrar as unknown as Terminal);
  if (!provider) throw new Error('@xterm/addon-unicode11 registered no provider');
  return provider;
})();

/** Cells code point `cp` takes (0, 1 or 2) by the emulator's tables; 0 joins the cell before. */
export function cellWidth(cp: number): number {
  return unicodeProvider.wcwidth(cp);
}

export function createTerminal(options: CreateTerminalOptions): Terminal {
  const term = new headless.Terminal({
    cols: options.cols,
    rows: options.rows,
    scrollback: options.scrollback,
    allowProposedApi: true,
    convertEol: false,
    logLevel: 'off',
  });
  term.unicode.register(unicodeProvider);
  term.unicode.activeVersion = unicodeProvider.version;
  if (!isCellCopyChecked) installCellCopy(term);
  return term;
}

// xterm's cell layout (buffer/Constants.ts of the pinned @xterm/headless), as row-bytes.ts reads it.
const IS_COMBINED_MASK = 0x200000;
const BG_HAS_EXTENDED = 0x10000000;

/** A buffer line as BufferLine.copyCellsFrom sees it. */
interface CopyLine {
  _data: Uint32Array;
  _combined: Record<number, string>;
  _extendedAttrs: Record<number, unknown>;
}

type CopyCells = (
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
const copyCells: CopyCells = function (this, src, srcCol, destCol, length, applyInReverse) {
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

/** Replaces BufferLine.copyCellsFrom (above) when a line of `term` has the expected shape. */
function installCellCopy(term: Terminal): void {
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

/** A buffer line's raw cells: 3 words per cell (content, foreground, background). */
export interface CoreLine {
  _data: Uint32Array;
  _combined: Record<number, string>;
  length: number;
}

interface CoreLines {
  readonly length?: unknown;
  get?(i: number): unknown;
}

interface Core {
  _onScroll?: { event?: unknown };
  _bufferService?: { buffers?: { normal?: { lines?: CoreLines }; alt?: { lines?: CoreLines } } };
  coreService?: { isCursorHidden?: unknown };
  buffer?: { lines?: { get(i: number): unknown } };
  _writeBuffer?: { handleUserInput?: unknown };
}

function core(term: Terminal): Core | undefined {
  return (term as unknown as { _core?: Core })._core;
}

/**
 * Calls `listener` on every scroll, on the emulator's own scroll event when it is as expected:
 * the public onScroll relays that event through a second emitter, a cost per row under a flood.
 */
export function onEveryScroll(term: Terminal, listener: () => void): IDisposable {
  const event = core(term)?._onScroll?.event;
  if (typeof event === 'function') return (event as (l: () => void) => IDisposable)(listener);
  return term.onScroll(listener);
}

/** Whether the program hid the cursor (DECTCEM), which the public API does not report. */
export function isCursorHidden(term: Terminal): boolean {
  const hidden = core(term)?.coreService?.isCursorHidden;
  return typeof hidden === 'boolean' ? hidden : false;
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

/**
 * Makes the next write start parsing at once instead of after a timer tick. xterm defers parsing
 * of a write into an empty buffer with setTimeout (at least 1 ms in Node) unless the user just
 * typed; agent-tty batches output per event-loop turn itself, so the deferral only adds latency.
 */
export function parseNextWriteNow(term: Terminal): void {
  const writeBuffer = core(term)?._writeBuffer;
  if (writeBuffer && typeof writeBuffer.handleUserInput === 'function') {
    (writeBuffer.handleUserInput as () => void).call(writeBuffer);
  }
}

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

/** `line` (from NormalBuffer.lines.get) as raw cell words, or undefined when it is not one. */
export function asRawLine(line: unknown): CoreLine | undefined {
  const raw = line as Partial<CoreLine> | undefined;
  if (!raw || !(raw._data instanceof Uint32Array) || typeof raw.length !== 'number') {
    return undefined;
  }
  return raw as CoreLine;
}

/** A normal-buffer line a narrowing resize may clear or make start a line, internal. */
export interface WritableLine extends CoreLine {
  isWrapped: boolean;
  /** Sets every cell to `cell` (from NormalBuffer.getNullCell), dropping combined characters. */
  fill(cell: unknown): void;
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
