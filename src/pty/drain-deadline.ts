/**
 * When the exit drain (output-barrier.ts) stops waiting for its marker, counted in turns of the
 * server's event loop rather than wall time. The drain ticks every DRAIN_TICK_MS; between two
 * ticks the loop has polled the terminal at least once, so a tick with no output read means the
 * terminal had nothing to give. On a starved loop (a busy machine, a long call) ticks come late
 * and the deadline stretches with them, where a wall-clock deadline would pass before the last
 * output was even read. Pure: no timers, no I/O.
 * @see spec/guarantees.md (Guarantees: nothing printed is lost)
 */

/** Time between two ticks of the drain, at least (a timer of the event loop). */
export const DRAIN_TICK_MS = 20;
/** Ticks in a row with no output read after which the marker is given up: at least 400 ms. */
export const DRAIN_QUIET_TICKS = 20;
/**
 * Output read since the exit after which everything the program wrote before it has been read:
 * a terminal holds far less unread (about 20 KiB on Linux 6, at most 68 KiB on older kernels),
 * so more than this is a surviving process still printing.
 */
export const DRAIN_MAX_BYTES = 1024 * 1024;
/** Ticks after which the marker is given up whatever arrives: at least 5 s. */
export const DRAIN_MAX_TICKS = 250;

/** Why the drain stopped waiting: nothing more to read, a process still printing, the cap. */
export type DrainEnd = 'quiet' | 'bytes' | 'ticks';

export interface DrainLimits {
  readonly quietTicks: number;
  readonly maxBytes: number;
  readonly maxTicks: number;
}

const DRAIN_LIMITS: DrainLimits = {
  quietTicks: DRAIN_QUIET_TICKS,
  maxBytes: DRAIN_MAX_BYTES,
  maxTicks: DRAIN_MAX_TICKS,
};

export class DrainDeadline {
  private _ticks = 0;
  private _quietTicks = 0;
  private _bytes = 0;
  private _readSinceTick = false;

  constructor(private readonly _limits: DrainLimits = DRAIN_LIMITS) {}

  /** Output was read from the terminal. */
  output(bytes: number): void {
    this._bytes += bytes;
    if (bytes > 0) this._readSinceTick = true;
  }

  /** One tick of the drain: why to stop waiting now, or undefined to keep waiting. */
  tick(): DrainEnd | undefined {
    this._ticks++;
    this._quietTicks = this._readSinceTick ? 0 : this._quietTicks + 1;
    this._readSinceTick = false;
    if (this._bytes >= this._limits.maxBytes) return 'bytes';
    if (this._quietTicks >= this._limits.quietTicks) return 'quiet';
    if (this._ticks >= this._limits.maxTicks) return 'ticks';
    return undefined;
  }
}
