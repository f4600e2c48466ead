/**
 * The only import of @xterm/headless and its Unicode 11 addon. Creates the emulator and reads the
 * few facts its public API does not expose (cursor visibility, a line's raw cell words for
 * fingerprinting). @xterm/headless is pinned exactly, and each internal read is shape-checked
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

export function createTerminal(options: CreateTerminalOptions): Terminal {
  const term = new headless.Terminal({
    cols: options.cols,
    rows: options.rows,
    scrollback: options.scrollback,
    allowProposedApi: true,
    convertEol: false,
    logLevel: 'off',
  });
  term.loadAddon(new unicode11.Unicode11Addon());
  term.unicode.activeVersion = '11';
  return term;
}

interface CoreLine {
  _data: Uint32Array;
  _combined: Record<number, string>;
  length: number;
}

interface Core {
  _bufferService?: { buffers?: { normal?: { lines?: { onTrim?: unknown } } } };
  coreService?: { isCursorHidden?: unknown };
  buffer?: { lines?: { get(i: number): unknown } };
  _writeBuffer?: { handleUserInput?: unknown };
}

function core(term: Terminal): Core | undefined {
  return (term as unknown as { _core?: Core })._core;
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

/**
 * Calls `listener` with the number of lines dropped from the top of the normal buffer's history
 * when it is full (xterm trims its circular list), so lines that ever scrolled can be counted.
 * Returns undefined when the internals are not as expected.
 */
export function onNormalHistoryTrim(
  term: Terminal,
  listener: (lines: number) => void,
): IDisposable | undefined {
  const onTrim = core(term)?._bufferService?.buffers?.normal?.lines?.onTrim;
  if (typeof onTrim !== 'function') return undefined;
  return (onTrim as (l: (n: number) => void) => IDisposable)(listener);
}
