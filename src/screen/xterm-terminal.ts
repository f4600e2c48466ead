/**
 * What the emulator's public API does not give about a terminal as a whole: its own scroll event,
 * whether the cursor is hidden, and parsing a write at once. Each read is shape-checked with a
 * public-API fallback (xterm-core.ts), so a changed internal degrades speed, never correctness.
 */
import type { IDisposable, Terminal } from './xterm.js';
import { core } from './xterm-core.js';

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
