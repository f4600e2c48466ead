/**
 * Small fakes for unit tests: a whole snapshot built from its screen rows, and a fake clock for
 * modules that take their timers through a deps object (pty/input-writer, pty/output-barrier).
 */
import type { Timers } from '../../src/pty/input-writer.js';
import type { Snapshot } from '../../src/session/session.js';

/** A running session's settled snapshot with these rows, and `extra` on top. */
export function snapshotOf(screen: string[], extra: Partial<Snapshot> = {}): Snapshot {
  return {
    status: 'running',
    cols: 20,
    rows: screen.length,
    buffer: 'normal',
    screen,
    cursor: { row: 1, column: 1, visible: true },
    settled: true,
    settle: 'quiet',
    historyTotal: 0,
    ...extra,
  };
}

/** Timers that fire only when advance() moves the clock past them, in time order. */
export class FakeTimers implements Timers {
  private readonly _pending: { at: number; fn: () => void }[] = [];
  now = 0;

  /** `minDelayMs`: the shortest delay a timer gets (Node's setTimeout treats 0 as 1). */
  constructor(private readonly _minDelayMs = 0) {}

  set(fn: () => void, ms: number): unknown {
    const entry = { at: this.now + Math.max(this._minDelayMs, ms), fn };
    this._pending.push(entry);
    return entry;
  }
  clear(handle: unknown): void {
    const at = this._pending.indexOf(handle as { at: number; fn: () => void });
    if (at !== -1) this._pending.splice(at, 1);
  }
  get pending(): number {
    return this._pending.length;
  }
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      this._pending.sort((a, b) => a.at - b.at);
      const next = this._pending[0];
      if (!next || next.at > end) break;
      this._pending.shift();
      this.now = next.at;
      next.fn();
    }
    this.now = end;
  }
  /**
   * The event loop was busy for `ms`: the clock jumps, then each timer that came due meanwhile
   * fires once, late; timers they set count from the new time.
   */
  stall(ms: number): void {
    this.now += ms;
    const due = this._pending.filter((entry) => entry.at <= this.now).sort((a, b) => a.at - b.at);
    for (const entry of due) {
      const at = this._pending.indexOf(entry);
      if (at === -1) continue;
      this._pending.splice(at, 1);
      entry.fn();
    }
  }
}
