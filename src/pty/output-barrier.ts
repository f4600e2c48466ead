/**
 * The output barrier: proof that every byte a program wrote before some moment has been read.
 * A unique marker (drain-marker.ts) is written through the terminal's slave side, which agent-tty
 * holds open; everything written before it comes out of the master first, so once the marker is
 * read back (and removed from the stream), all earlier output has been passed on. It serves input
 * waits (barrier()) and the exit drain: after the program is gone, the exit is reported only once
 * the marker is back or the drain's deadline passed (drain-deadline.ts: counted in turns of the
 * event loop, not wall time), and node-pty's late destroy of its read stream waits for that. No
 * PTY here: the adapter (node-pty-handle.ts) feeds output in and lends the slave descriptor.
 */
import { DRAIN_TICK_MS, DrainDeadline } from './drain-deadline.js';
import { createDrainMarker, type DrainMarker } from './drain-marker.js';
import { NODE_TIMERS, type Timers, type WriteSync } from './input-writer.js';

/** Default wait for a barrier's marker to come back (input waits; not the exit drain). */
export const BARRIER_TIMEOUT_MS = 250;
/** Retry of a marker write the terminal could not take (its output buffer is full). */
export const MARKER_RETRY_MS = 2;

export interface OutputBarrierDeps {
  /** Writes to the slave descriptor; returns the bytes taken, throws an errno error (EAGAIN). */
  readonly write: WriteSync;
  /** Closes the slave descriptor. */
  readonly close: (fd: number) => void;
  /** Receives the output, in order, markers removed. */
  readonly deliver: (chunk: Uint8Array) => void;
  readonly createMarker?: () => DrainMarker;
  readonly timers?: Timers;
}

interface PendingMarker {
  readonly marker: DrainMarker;
  readonly resolve: (delivered: boolean) => void;
  timer?: unknown;
  /** Bytes of the marker written so far, and the retry while the terminal is full. */
  written: number;
  retry?: unknown;
}

export class OutputBarrier {
  private _markers: PendingMarker[] = [];
  private _disposed = false;
  /** The program is gone and its last output is still being read. */
  private _draining = false;
  /** When the exit drain gives up, fed with the output read while it runs. */
  private _drainDeadline: DrainDeadline | undefined;
  /** node-pty's destroy of the read stream, held back while draining. */
  private _heldDestroy: (() => void) | undefined;
  private readonly _timers: Timers;
  private readonly _createMarker: () => DrainMarker;

  /** `slaveFd`: the terminal's slave side, opened by the caller; closed here from now on. */
  constructor(
    private _slaveFd: number | undefined,
    private readonly _deps: OutputBarrierDeps,
  ) {
    this._timers = _deps.timers ?? NODE_TIMERS;
    this._createMarker = _deps.createMarker ?? (() => createDrainMarker());
  }

  /** Output read from the master: passed on with markers removed; a marker seen ends its barrier. */
  onOutput(chunk: Uint8Array): void {
    this._drainDeadline?.output(chunk.length);
    let rest = chunk;
    while (rest.length > 0) {
      const head = this._markers[0];
      if (!head) {
        this._deps.deliver(rest);
        return;
      }
      const scan = head.marker.scan(rest);
      for (const piece of scan.before) this._deps.deliver(piece);
      if (!scan.found) return;
      this._settle(head, true);
      rest = scan.after;
    }
  }

  /**
   * Resolves true once every byte written to the terminal before this call has been passed on
   * (its marker came back out), false if that is not confirmed within `timeoutMs`, or at once
   * when the slave side is closed.
   */
  barrier(timeoutMs = BARRIER_TIMEOUT_MS): Promise<boolean> {
    return this._startBarrier((pending) =>
      this._timers.set(() => this._settle(pending, false), timeoutMs),
    );
  }

  /**
   * The program is gone: a last barrier, and once it is settled the slave is let go (the master
   * then sees the hangup, and node-pty reports the exit at once instead of after 200 ms) and a
   * read-stream destroy held meanwhile goes ahead. Its deadline (drain-deadline.ts) is counted
   * in turns of the event loop: 20 ticks in a row with nothing read (at least 400 ms), 1 MiB
   * read since the exit (a surviving process still printing), or 250 ticks (at least 5 s).
   */
  drainAfterExit(): void {
    this._draining = true;
    const deadline = new DrainDeadline();
    this._drainDeadline = deadline;
    void this._startBarrier((pending) => this._drainTick(pending, deadline)).then(() => {
      this._draining = false;
      this._drainDeadline = undefined;
      this.closeSlave();
      this._releaseHeldDestroy();
    });
  }

  /**
   * node-pty destroys its read stream 200 ms after it reaps the program, read or not; on a busy
   * machine the program's last output may still be unread then. While the exit drain runs, that
   * destroy waits for it (bounded by the drain's deadline): returns true when `destroy` is held,
   * false when it should go ahead now.
   */
  holdDestroy(destroy: () => void): boolean {
    if (!this._draining || this._disposed) return false;
    this._heldDestroy = destroy;
    return true;
  }

  /** Ends every pending barrier as not delivered; bytes held for a partial marker are passed on. */
  settleAll(): void {
    for (const pending of [...this._markers]) this._settle(pending, false);
  }

  /** Lets go of the slave side; later barriers resolve false at once. */
  closeSlave(): void {
    if (this._slaveFd === undefined) return;
    const fd = this._slaveFd;
    this._slaveFd = undefined;
    try {
      this._deps.close(fd);
    } catch {
      // Already closed.
    }
  }

  /** Ends every barrier (held bytes dropped), closes the slave, releases a held destroy. */
  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    this.settleAll();
    this.closeSlave();
    this._releaseHeldDestroy();
  }

  /** Writes a new marker and waits for it; `deadline` arms its deadline and returns the timer. */
  private _startBarrier(deadline: (pending: PendingMarker) => unknown): Promise<boolean> {
    const fd = this._slaveFd;
    if (fd === undefined || this._disposed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const pending: PendingMarker = { marker: this._createMarker(), resolve, written: 0 };
      this._markers.push(pending);
      pending.timer = deadline(pending);
      this._writeMarker(pending, fd);
    });
  }

  /** The exit drain's next tick: settles its barrier when the deadline says to stop waiting. */
  private _drainTick(pending: PendingMarker, deadline: DrainDeadline): unknown {
    return this._timers.set(() => {
      if (deadline.tick() === undefined) pending.timer = this._drainTick(pending, deadline);
      else this._settle(pending, false);
    }, DRAIN_TICK_MS);
  }

  /**
   * Writes a barrier's marker through the slave. Synchronous, like every write here (an
   * asynchronous write could run after the slave is closed and its number reused); while the
   * terminal's output buffer is full (the program's last output not yet read), it retries until
   * the barrier's deadline.
   */
  private _writeMarker(pending: PendingMarker, fd: number): void {
    pending.retry = undefined;
    if (!this._markers.includes(pending) || this._slaveFd !== fd) return;
    const bytes = pending.marker.bytes;
    try {
      while (pending.written < bytes.length) {
        pending.written += this._deps.write(
          fd,
          bytes,
          pending.written,
          bytes.length - pending.written,
        );
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') {
        pending.retry = this._timers.set(() => this._writeMarker(pending, fd), MARKER_RETRY_MS);
      } else {
        this._settle(pending, false);
      }
    }
  }

  /** Ends a barrier: removes its marker from the scan and releases any bytes it held back. */
  private _settle(pending: PendingMarker, delivered: boolean): void {
    const at = this._markers.indexOf(pending);
    if (at === -1) return;
    this._markers.splice(at, 1);
    this._timers.clear(pending.timer);
    this._timers.clear(pending.retry);
    const held = pending.marker.flush();
    if (held.length > 0 && !this._disposed) this.onOutput(held);
    pending.resolve(delivered);
  }

  private _releaseHeldDestroy(): void {
    const held = this._heldDestroy;
    this._heldDestroy = undefined;
    held?.();
  }
}
