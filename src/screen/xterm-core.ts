/**
 * The emulator's internals as agent-tty reads them: the core object behind a terminal and a
 * buffer line's raw cells. Every read is shape-checked and gives undefined when the pinned
 * @xterm/headless is not as expected, so callers fall back to its public API (xterm.ts owns the
 * package; xterm-buffers.ts, xterm-terminal.ts and xterm-cell-copy.ts read through here).
 */

/** A buffer line's raw cells: 3 words per cell (content, foreground, background). */
export interface CoreLine {
  _data: Uint32Array;
  _combined: Record<number, string>;
  length: number;
}

/** A buffer's lines, internal (a circular list). */
export interface CoreLines {
  readonly length?: unknown;
  get?(i: number): unknown;
}

/** The parts of a terminal's core that agent-tty reads, each to be checked where used. */
export interface Core {
  _onScroll?: { event?: unknown };
  _bufferService?: { buffers?: { normal?: { lines?: CoreLines }; alt?: { lines?: CoreLines } } };
  coreService?: { isCursorHidden?: unknown };
  buffer?: { lines?: { get(i: number): unknown } };
  _writeBuffer?: { handleUserInput?: unknown };
}

/** The core of terminal `term` (a headless Terminal), or undefined when it has none. */
export function core(term: object): Core | undefined {
  return (term as { _core?: Core })._core;
}

/** `line` (a buffer line, internal) as raw cell words, or undefined when it is not one. */
export function asRawLine(line: unknown): CoreLine | undefined {
  const raw = line as Partial<CoreLine> | undefined;
  if (!raw || !(raw._data instanceof Uint32Array) || typeof raw.length !== 'number') {
    return undefined;
  }
  return raw as CoreLine;
}
