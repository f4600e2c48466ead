/**
 * Small fakes for unit tests: a whole snapshot built from its screen rows, fake timers for
 * modules that take their timers through a deps object (pty/input-writer, pty/output-barrier),
 * and a fake Clock for those that take screen/settle.ts's Clock (settlement, waits, readiness).
 */
import type { Timers } from '../../src/pty/input-writer.js';
import type { Clock } from '../../src/screen/settle.js';
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

/** Lets every pending promise callback run. */
export const flushPromises = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A Clock whose time moves only when advance() moves it: each timer due on the way fires at its
 * own time, in time order, and promise callbacks run before each timer and after the last.
 */
export class FakeClock implements Clock {
  private _now: number;
  private _nextId = 1;
  private readonly _timers = new Map<number, { at: number; fn: () => void }>();

  constructor(start = 0) {
    this._now = start;
  }

  now(): number {
    return this._now;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this._nextId++;
    this._timers.set(id, { at: this._now + ms, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this._timers.delete(handle as number);
  }

  get pendingTimers(): number {
    return this._timers.size;
  }

  /** Moves time forward by `ms`, firing each timer due on the way at its own time. */
  async advance(ms: number): Promise<void> {
    const end = this._now + ms;
    for (let fired = 0; ; fired++) {
      // A timer that keeps setting itself for the same moment would spin here forever.
      if (fired > 100_000) throw new Error(`timers keep firing at ${this._now} ms`);
      await flushPromises();
      let due: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this._timers) {
        if (entry[1].at <= end && (!due || entry[1].at < due[1].at)) due = entry;
      }
      if (!due) break;
      this._timers.delete(due[0]);
      this._now = Math.max(this._now, due[1].at);
      due[1].fn();
    }
    this._now = end;
    await flushPromises();
  }
}
