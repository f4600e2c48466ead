/**
 * The PtyHandle over a node-pty terminal (spawn.ts starts it): passes output on, writes input
 * through InputWriter, resizes, pauses and disposes. Every byte a program wrote before its exit is
 * delivered before the exit is reported (spec/tools.md, "Nothing printed is lost"): it holds the
 * terminal's slave side open so the master never sees an early hangup, notices the exit by polling
 * the pid, and leaves the drain to the output barrier (output-barrier.ts).
 */
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { LIMITS } from '../shared/config.js';
import { InputWriter, type TerminalFd } from './input-writer.js';
import { OutputBarrier } from './output-barrier.js';
import { type PtyEvents, type PtyHandle, ptyExitOf, type SpawnOptions } from './pty-handle.js';
import { destroyPty, interceptMasterDestroy, masterOf, ptsNameOf } from './pty-internals.js';
import { isProcessAlive } from './terminate.js';

/** What the handle uses of node-pty's terminal object (IPty, with `encoding: null`). */
export interface NativePty {
  readonly pid: number;
  onData(listener: (data: string) => void): { dispose(): void };
  onExit(listener: (exit: { exitCode: number; signal?: number }) => void): { dispose(): void };
  resize(cols: number, rows: number): void;
  pause(): void;
  resume(): void;
}

/** How often the program's pid is checked for exit. */
const EXIT_POLL_MS = 8;

export class NodePtyHandle implements PtyHandle {
  readonly pid: number;
  readonly ttyPath: string;
  private _exited = false;
  private _disposed = false;
  private _paused = false;
  private _leaderGone = false;
  private readonly _output: OutputBarrier;
  private readonly _poll: NodeJS.Timeout;
  private readonly _subscriptions: { dispose(): void }[];
  private readonly _master: TerminalFd;
  private readonly _writer: InputWriter;

  constructor(
    private readonly _pty: NativePty,
    private readonly _events: PtyEvents,
    options: Pick<SpawnOptions, 'inputLimitBytes' | 'replyLimitBytes'>,
  ) {
    this.pid = _pty.pid;
    this.ttyPath = ptsNameOf(_pty);
    this._output = new OutputBarrier(openSlave(this.ttyPath), {
      write: writeSync,
      close: closeSync,
      deliver: (chunk) => this._events.onData(chunk),
    });
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
    // node-pty destroys its read stream after the program's exit; the output barrier holds that
    // destroy until the exit drain is done (OutputBarrier.holdDestroy), any other goes ahead.
    interceptMasterDestroy(_pty, (destroy) => {
      this._checkLeader();
      return this._output.holdDestroy(destroy);
    });
    this._poll = setInterval(() => this._checkLeader(), EXIT_POLL_MS);
    this._poll.unref();
  }

  write(data: Uint8Array): void {
    if (this._exited || this._disposed) return;
    this._writer.write(data);
  }

  reply(data: Uint8Array, beforeWrite?: () => void): boolean {
    if (this._exited || this._disposed) return false;
    return this._writer.reply(data, beforeWrite);
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

  barrier(timeoutMs?: number): Promise<boolean> {
    if (this._exited || this._disposed) return Promise.resolve(false);
    return this._output.barrier(timeoutMs);
  }

  dispose(): void {
    if (this._disposed) return;
    this._disposed = true;
    this._stopTimers();
    this._writer.close();
    this._output.dispose();
    for (const s of this._subscriptions) s.dispose();
    if (!this._exited) destroyPty(this._pty);
  }

  private _onData(chunk: Uint8Array): void {
    if (this._disposed || this._exited) return;
    this._output.onOutput(chunk);
  }

  private _onExit(exitCode: number, signal: number | undefined): void {
    if (this._exited) return;
    this._leaderGone = true;
    this._stopTimers();
    this._writer.close();
    this._output.closeSlave();
    this._output.settleAll();
    this._exited = true;
    if (this._disposed) return;
    this._events.onExit(ptyExitOf(exitCode, signal));
  }

  /** Notices the program's exit without waiting for node-pty, which learns of it late. */
  private _checkLeader(): void {
    if (this._leaderGone || this._exited || isProcessAlive(this.pid)) return;
    this._leaderGone = true;
    clearInterval(this._poll);
    if (this._paused) this._pty.resume();
    this._output.drainAfterExit();
  }

  private _stopTimers(): void {
    clearInterval(this._poll);
  }
}

/** The terminal's slave side, held open (non-blocking, not as controlling terminal); or undefined. */
export function openSlave(path: string): number | undefined {
  if (!path) return undefined;
  try {
    return openSync(path, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
}
