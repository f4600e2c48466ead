/**
 * The PTY: node-pty's adapter, and the only import of node-pty. Delivers every byte a program
 * wrote before its exit is reported (see spec/tools.md, "Nothing printed is lost"): it holds the
 * terminal's slave side open so the master never sees an early hangup, notices the program's
 * exit by polling its pid, then writes a drain marker through the slave and reports the exit only
 * once the marker has come back out of the master.
 */
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import * as nodePty from 'node-pty';
import { LIMITS } from '../config.js';
import { TerminalError } from '../errors.js';
import { createDrainMarker, type DrainMarker } from './drain-marker.js';
import { InputWriter, type TerminalFd } from './input-writer.js';
import { ensureSpawnHelper } from './spawn-helper.js';
import { checkSpawnable } from './spawnable.js';

export interface SpawnOptions {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly cols: number;
  readonly rows: number;
  /** Most input bytes that may wait for the program to read (see input-writer.ts). */
  readonly inputLimitBytes?: number;
  /** Most probe-reply bytes that may wait; further replies are dropped. */
  readonly replyLimitBytes?: number;
}

export interface PtyExit {
  readonly exitCode: number | null;
  readonly signal: string | null;
}

export interface PtyEvents {
  /** Output, in order; never called after onExit. */
  onData(chunk: Uint8Array): void;
  onExit(exit: PtyExit): void;
}

export interface PtyHandle {
  readonly pid: number;
  /** Path of the terminal's slave device, e.g. /dev/pts/3. */
  readonly ttyPath: string;
  /** Queues input for the program; discarded, never written elsewhere, once the terminal is gone. */
  write(data: Uint8Array): void;
  /** Queues a probe reply; false when dropped (closed, or too many replies waiting). */
  reply(data: Uint8Array): boolean;
  /** Input bytes queued that the program has not taken yet. */
  readonly pendingInputBytes: number;
  /** Whether `bytes` more input fit under the input limit. */
  hasInputRoom(bytes: number): boolean;
  resize(cols: number, rows: number): void;
  /**
   * Resolves true once every byte the program wrote before this call has been delivered to
   * onData (a marker written through the terminal has come back out), false if that cannot be
   * confirmed within `timeoutMs` (output stopped, terminal closed).
   */
  barrier(timeoutMs?: number): Promise<boolean>;
  /** Flow control: stop reading (the program blocks once the kernel buffer fills). */
  pause(): void;
  resume(): void;
  /** Stops reading and releases the descriptors; processes are ended elsewhere. */
  dispose(): void;
}

/** How often the program's pid is checked for exit. */
const EXIT_POLL_MS = 8;
/** After the exit, how long to wait for the drain marker before giving up on it. */
const DRAIN_TIMEOUT_MS = 400;
/** Default wait for a barrier's marker to come back. */
const BARRIER_TIMEOUT_MS = 250;

interface PendingMarker {
  readonly marker: DrainMarker;
  readonly resolve: (delivered: boolean) => void;
  timer?: NodeJS.Timeout;
  /** Bytes of the marker written so far, and the retry while the terminal is full. */
  written: number;
  retry?: NodeJS.Timeout | undefined;
}

/** Retry of a marker write the terminal could not take (its output buffer is full). */
const MARKER_RETRY_MS = 2;

export function spawnPty(options: SpawnOptions, events: PtyEvents): PtyHandle {
  checkSpawnable(options.file, options.cwd, options.env);
  const helperProblem = ensureSpawnHelper();
  let pty: nodePty.IPty;
  try {
    pty = nodePty.spawn(options.file, [...options.args], {
      name: options.env.TERM ?? 'xterm-256color',
      cols: options.cols,
      rows: options.rows,
      cwd: options.cwd,
      env: { ...options.env },
      encoding: null,
    });
  } catch (err) {
    throw new TerminalError(
      'SPAWN_FAILED',
      `could not start "${options.file}": ${(err as Error).message}${helperProblem ? `; ${helperProblem}` : ''}`,
      { file: options.file, cwd: options.cwd },
      { cause: err },
    );
  }
  return new NodePtyHandle(pty, events, options);
}

class NodePtyHandle implements PtyHandle {
  readonly pid: number;
  readonly ttyPath: string;
  private _slaveFd: number | undefined;
  private _exited = false;
  private _disposed = false;
  private _paused = false;
  private _leaderGone = false;
  /** The program is gone and its last output is still being read. */
  private _draining = false;
  /** node-pty's destroy of the read stream, held back while draining. */
  private _heldDestroy: (() => void) | undefined;
  private _markers: PendingMarker[] = [];
  private readonly _poll: NodeJS.Timeout;
  private readonly _subscriptions: nodePty.IDisposable[];
  private readonly _master: TerminalFd;
  private readonly _writer: InputWriter;

  constructor(
    private readonly _pty: nodePty.IPty,
    private readonly _events: PtyEvents,
    options: SpawnOptions,
  ) {
    this.pid = _pty.pid;
    this.ttyPath = (_pty as unknown as { ptsName?: string }).ptsName ?? '';
    this._slaveFd = openSlave(this.ttyPath);
    this._master = masterOf(_pty);
    this._writer = new InputWriter(this._master, {
      limitBytes: options.inputLimitBytes ?? LIMITS.maxPendingInputBytes,
      replyLimitBytes: options.replyLimitBytes ?? LIMITS.maxPendingReplyBytes,
      write: writeSync,
    });
    this._subscriptions = [
      _pty.onData((data) => this._onData(data as unknown as Uint8Array)),
      _pty.onExit(({ exitCode, signal }) => this._onExit(exitCode, signal)),
    ];
    this._holdDestroyWhileDraining();
    this._poll = setInterval(() => this._checkLeader(), EXIT_POLL_MS);
    this._poll.unref();
  }

  write(data: Uint8Array): void {
    if (this._exited || this._disposed) return;
    this._writer.write(data);
  }

  reply(data: Uint8Array): boolean {
    if (this._exited || this._disposed) return false;
    return this._writer.reply(data);
  }

  get pendingInputBytes(): number {
    return this._writer.pendingBytes;
  }

  hasInputRoom(bytes: number): boolean {
    return this._writer.hasRoom(bytes);
  }

  resize(cols: number, rows: number): void {
    // node-pty resizes by descriptor number: never once that number may belong to another file.
    if (this._exited || this._disposed || this._master.current() === undefined) return;
    try {
      this._pty.resize(cols, rows);
    } catch {
      // The terminal closed between the exit check and the ioctl; the exit is on its way.
    }
  }

  pause(): void {
    this._paused = true;
    // Never leave the stream paused once the program is gone: node-pty discards unread output
    // when it closes the stream after an exit.
    if (!this._leaderGone) this._pty.pause();
  }

  resume(): void {
    this._paused = false;
    this._pty.resume();
  }

  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    this._stopTimers();
    this._writer.close();
    for (const pending of [...this._markers]) this._settleMarker(pending, false);
    this._closeSlave();
    const held = this._heldDestroy;
    this._heldDestroy = undefined;
    held?.();
    for (const s of this._subscriptions) s.dispose();
    if (!this._exited) {
      (this._pty as unknown as { destroy?: () => void }).destroy?.();
    }
  }

  private _onData(chunk: Uint8Array): void {
    if (this._disposed || this._exited) return;
    let rest = chunk;
    while (rest.length > 0) {
      const head = this._markers[0];
      if (!head) {
        this._events.onData(rest);
        return;
      }
      const scan = head.marker.scan(rest);
      for (const piece of scan.before) this._events.onData(piece);
      if (!scan.found) return;
      this._settleMarker(head, true);
      rest = scan.after;
    }
  }

  barrier(timeoutMs = BARRIER_TIMEOUT_MS): Promise<boolean> {
    const fd = this._slaveFd;
    if (fd === undefined || this._exited || this._disposed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const pending: PendingMarker = { marker: createDrainMarker(), resolve, written: 0 };
      this._markers.push(pending);
      pending.timer = setTimeout(() => this._settleMarker(pending, false), timeoutMs);
      pending.timer.unref();
      this._writeMarker(pending, fd);
    });
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
        pending.written += writeSync(fd, bytes, pending.written, bytes.length - pending.written);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') {
        pending.retry = setTimeout(() => this._writeMarker(pending, fd), MARKER_RETRY_MS);
        pending.retry.unref();
      } else {
        this._settleMarker(pending, false);
      }
    }
  }

  /** Ends a barrier: removes its marker from the scan and releases any bytes it held back. */
  private _settleMarker(pending: PendingMarker, delivered: boolean): void {
    const at = this._markers.indexOf(pending);
    if (at === -1) return;
    this._markers.splice(at, 1);
    clearTimeout(pending.timer);
    clearTimeout(pending.retry);
    const held = pending.marker.flush();
    if (held.length > 0 && !this._disposed && !this._exited) this._onData(held);
    pending.resolve(delivered);
  }

  private _onExit(exitCode: number, signal: number | undefined): void {
    if (this._exited) return;
    this._leaderGone = true;
    this._stopTimers();
    this._writer.close();
    this._closeSlave();
    for (const pending of [...this._markers]) this._settleMarker(pending, false);
    this._exited = true;
    if (this._disposed) return;
    this._events.onExit({
      exitCode: signal ? null : exitCode,
      signal: signal ? signalName(signal) : null,
    });
  }

  /** Notices the program's exit without waiting for node-pty, which learns of it late. */
  private _checkLeader(): void {
    if (this._leaderGone || this._exited) return;
    try {
      process.kill(this.pid, 0);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EPERM') return;
    }
    this._leaderGone = true;
    this._draining = true;
    clearInterval(this._poll);
    if (this._paused) this._pty.resume();
    // Once everything written before the exit is read, letting go of the slave side lets the
    // master see the hangup, and node-pty reports the exit at once instead of after 200 ms.
    void this.barrier(DRAIN_TIMEOUT_MS).then(() => {
      this._draining = false;
      this._closeSlave();
      const held = this._heldDestroy;
      this._heldDestroy = undefined;
      held?.();
    });
  }

  /**
   * node-pty destroys its read stream 200 ms after it reaps the program, read or not; on a busy
   * machine the program's last output may still be unread then. While the drain barrier runs,
   * that destroy waits for it (bounded by the barrier's deadline); any other destroy (dispose,
   * a read error) goes ahead at once.
   */
  private _holdDestroyWhileDraining(): void {
    const socket = (this._pty as unknown as { _socket?: { destroy: (e?: Error) => unknown } })
      ._socket;
    if (!socket) return;
    const destroy = socket.destroy.bind(socket);
    socket.destroy = (error?: Error) => {
      this._checkLeader();
      if (this._draining && !this._disposed) {
        this._heldDestroy = () => destroy(error);
        return socket;
      }
      return destroy(error);
    };
  }

  private _closeSlave(): void {
    if (this._slaveFd === undefined) return;
    const fd = this._slaveFd;
    this._slaveFd = undefined;
    try {
      closeSync(fd);
    } catch {
      // Already closed.
    }
  }

  private _stopTimers(): void {
    clearInterval(this._poll);
  }
}

/**
 * The master side of node-pty's terminal. node-pty reads it through a tty.ReadStream and closes
 * the descriptor only by destroying that stream (at dispose, or on the read error that follows
 * the program's exit), which marks the stream destroyed and drops its handle in the same step.
 */
function masterOf(pty: nodePty.IPty): TerminalFd {
  const internals = pty as unknown as {
    fd?: number;
    _socket?: { destroyed: boolean; _handle?: unknown };
  };
  const fd = internals.fd;
  const socket = internals._socket;
  return {
    current: () =>
      fd !== undefined && socket !== undefined && !socket.destroyed && socket._handle != null
        ? fd
        : undefined,
  };
}

function openSlave(path: string): number | undefined {
  if (!path) return undefined;
  try {
    return openSync(path, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
}

const SIGNAL_NAMES = new Map<number, string>(
  Object.entries(osConstants.signals).map(([name, num]) => [num, name]),
);

function signalName(signal: number): string {
  return SIGNAL_NAMES.get(signal) ?? `SIG${signal}`;
}
