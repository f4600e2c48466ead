/**
 * The PTY: node-pty's adapter, and the only import of node-pty. Spawns the program, passes its
 * output on, writes input through InputWriter, resizes, pauses and disposes. Every byte a program
 * wrote before its exit is delivered before the exit is reported (spec/tools.md, "Nothing printed
 * is lost"): it holds the terminal's slave side open so the master never sees an early hangup,
 * notices the exit by polling the pid, and leaves the drain to the output barrier (output-barrier.ts).
 */
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants as osConstants } from 'node:os';
import type * as nodePty from 'node-pty';
import { LIMITS } from '../shared/config.js';
import { TerminalError } from '../shared/errors.js';
import { spawnAboveOpenDescriptors } from './descriptor-gaps.js';
import { InputWriter, type TerminalFd } from './input-writer.js';
import { OutputBarrier } from './output-barrier.js';
import { ptyUnavailableError } from './pty-unavailable.js';
import { ensureSpawnHelper } from './spawn-helper.js';
import { checkSpawnable } from './spawnable.js';
import { isProcessAlive } from './terminate.js';

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
  /**
   * Queues a probe reply; false when dropped (closed, or too many replies waiting). Calls
   * `beforeWrite` just before a reply it takes is written.
   */
  reply(data: Uint8Array, beforeWrite?: () => void): boolean;
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

/**
 * node-pty, loaded on first use rather than imported: a missing or foreign native module then
 * fails the call that needs it (SPAWN_FAILED naming the fix), never the module graph it sits in,
 * and a later call tries again (a failed require is not cached), so a rebuilt install works
 * without a restart.
 */
let loadedPty: typeof nodePty | undefined;
function nativePty(): typeof nodePty {
  if (loadedPty !== undefined) return loadedPty;
  const require = createRequire(import.meta.url);
  let loaded: typeof nodePty;
  try {
    loaded = require('node-pty') as typeof nodePty;
  } catch (err) {
    throw ptyUnavailableError(err);
  }
  if (typeof loaded.spawn !== 'function') {
    throw ptyUnavailableError(new Error('node-pty exports no spawn()'));
  }
  loadedPty = loaded;
  return loaded;
}

/**
 * Start-up check of the native module: loads node-pty; throws SPAWN_FAILED (with the fix) when it
 * cannot be loaded. Callers import this module lazily, which loads no emulator code.
 */
export function checkNativePty(): void {
  nativePty();
}

export function spawnPty(options: SpawnOptions, events: PtyEvents): PtyHandle {
  const name = options.env.TERM ?? 'xterm-256color';
  // The environment exactly as node-pty passes it to exec: it sets PWD and TERM itself.
  const env = { ...options.env, PWD: options.cwd, TERM: name };
  checkSpawnable(options.file, options.args, options.cwd, env);
  const native = nativePty();
  const helperProblem = ensureSpawnHelper();
  let pty: nodePty.IPty;
  try {
    // The program inherits none of the server's descriptors (see descriptor-gaps.ts).
    pty = spawnAboveOpenDescriptors(() =>
      native.spawn(options.file, [...options.args], {
        name,
        cols: options.cols,
        rows: options.rows,
        cwd: options.cwd,
        env,
        encoding: null,
      }),
    );
  } catch (err) {
    throw new TerminalError(
      'SPAWN_FAILED',
      `could not start "${options.file}" in "${options.cwd}": ${(err as Error).message}; ${helperProblem ?? 'check the shell and cwd (if every program fails so, run `agent-tty doctor` to check the install)'}`,
      { file: options.file, cwd: options.cwd },
      { cause: err },
    );
  }
  return new NodePtyHandle(pty, events, options);
}

class NodePtyHandle implements PtyHandle {
  readonly pid: number;
  readonly ttyPath: string;
  private _exited = false;
  private _disposed = false;
  private _paused = false;
  private _leaderGone = false;
  private readonly _output: OutputBarrier;
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
    this._holdDestroyWhileDraining();
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
    if (!this._exited) {
      (this._pty as unknown as { destroy?: () => void }).destroy?.();
    }
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
    this._events.onExit({
      exitCode: signal ? null : exitCode,
      signal: signal ? signalName(signal) : null,
    });
  }

  /** Notices the program's exit without waiting for node-pty, which learns of it late. */
  private _checkLeader(): void {
    if (this._leaderGone || this._exited || isProcessAlive(this.pid)) return;
    this._leaderGone = true;
    clearInterval(this._poll);
    if (this._paused) this._pty.resume();
    this._output.drainAfterExit();
  }

  /**
   * Routes node-pty's destroy of its read stream through the output barrier, which holds the
   * destroy that follows the program's exit until the exit drain is done (see
   * OutputBarrier.holdDestroy); any other destroy (dispose, a read error) goes ahead at once.
   */
  private _holdDestroyWhileDraining(): void {
    const socket = (this._pty as unknown as { _socket?: { destroy: (e?: Error) => unknown } })
      ._socket;
    if (!socket) return;
    const destroy = socket.destroy.bind(socket);
    socket.destroy = (error?: Error) => {
      this._checkLeader();
      if (this._output.holdDestroy(() => destroy(error))) return socket;
      return destroy(error);
    };
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
