/**
 * Bounds the time one piece of output (parse-feed.ts) holds the server's thread, whatever it
 * asks of the emulator. A piece is at most 32 KiB, but some sequences cost in proportion to the
 * screen, not to their bytes: on a 500x200 screen, 32 KiB of `CSI 999 L` took 18 s to parse,
 * of `ESC c` 8 s, of `CSI 2 J` 2 s. Before each such sequence this checks how long the piece has
 * been parsing; past SLICE_BUDGET_MS it pauses the emulator's parser (@xterm/headless pauses a
 * write when a handler returns a promise, and resumes where it stopped) until the event loop has
 * run its I/O once (setImmediate), then lets the sequence run. So a slice of parsing holds the
 * loop for at most the budget plus one such sequence (about 2 ms at 500x200, the largest screen).
 *
 * While paused, the piece is not parsed: parse-feed.ts writes nothing more to the emulator until
 * the piece's write callback fires (writing during a pause would make xterm re-enter its parser).
 */
import type { IDisposable, Terminal } from './xterm.js';

/** Parsing one slice may do before it yields to the event loop's I/O. */
export const SLICE_BUDGET_MS = 4;

/** Sequences whose cost grows with the screen (or a repeat count), each yielding when over budget. */
const CSI_IDS: { prefix?: string; intermediates?: string; final: string }[] = [
  { final: '@' }, // ICH
  { final: 'L' }, // IL
  { final: 'M' }, // DL
  { final: 'P' }, // DCH
  { final: 'S' }, // SU
  { final: 'T' }, // SD
  { final: 'X' }, // ECH
  { final: 'J' }, // ED
  { final: 'K' }, // EL
  { final: 'b' }, // REP
  { prefix: '?', final: 'J' }, // DECSED
  { prefix: '?', final: 'K' }, // DECSEL
  { prefix: '?', final: 'h' }, // DECSET (alternate screen, DECCOLM ...)
  { prefix: '?', final: 'l' }, // DECRST
  { intermediates: ' ', final: '@' }, // SL
  { intermediates: ' ', final: 'A' }, // SR
  { intermediates: "'", final: '}' }, // DECIC
  { intermediates: "'", final: '~' }, // DECDC
  { intermediates: '!', final: 'p' }, // DECSTR
];
const ESC_IDS: { intermediates?: string; final: string }[] = [
  { final: 'c' }, // RIS
  { intermediates: '#', final: '8' }, // DECALN
];

export class ParseYield {
  private _sliceStart = 0;
  private _disposed = false;
  private readonly _hooks: IDisposable[];

  constructor(
    term: Terminal,
    private readonly _now: () => number = () => performance.now(),
    private readonly _budgetMs = SLICE_BUDGET_MS,
    private readonly _defer: (resume: () => void) => void = (resume) => setImmediate(resume),
  ) {
    // The headless typings say boolean; its parser (shared with xterm.js) takes a promise too.
    const check = (() => this._check()) as unknown as () => boolean;
    this._hooks = [
      ...CSI_IDS.map((id) => term.parser.registerCsiHandler(id, check)),
      ...ESC_IDS.map((id) => term.parser.registerEscHandler(id, check)),
    ];
  }

  /** A piece starts parsing: a new slice. */
  startSlice(): void {
    this._sliceStart = this._now();
  }

  /** Never resumes a paused parse again (the terminal is going away). */
  dispose(): void {
    this._disposed = true;
    for (const hook of this._hooks) hook.dispose();
  }

  /** false: the emulator handles the sequence now; a promise of false: after a pause. */
  private _check(): boolean | Promise<boolean> {
    if (this._now() - this._sliceStart < this._budgetMs) return false;
    return new Promise<boolean>((resolve) => {
      this._defer(() => {
        if (this._disposed) return; // left pending: xterm never resumes into a disposed terminal
        this._sliceStart = this._now();
        resolve(false);
      });
    });
  }
}
