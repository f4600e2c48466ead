/**
 * The PTY as the rest of agent-tty sees it: how a program is started (SpawnOptions), what it
 * reports (PtyEvents, PtyExit) and what can be done with it (PtyHandle); and how an exit status
 * becomes a PtyExit. node-pty's adapter is node-pty-handle.ts, started by spawn.ts.
 * @see spec/tools.md ("Nothing printed is lost")
 */
import { constants as osConstants } from 'node:os';

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

const SIGNAL_NAMES = new Map<number, string>(
  Object.entries(osConstants.signals).map(([name, num]) => [num, name]),
);

/**
 * The exit as reported: the exit code, or (killed by a signal) no code and the signal's name
 * ("SIGKILL"; "SIG<n>" for a number the platform does not name). Signal 0 means none.
 */
export function ptyExitOf(exitCode: number, signal: number | undefined): PtyExit {
  return {
    exitCode: signal ? null : exitCode,
    signal: signal ? signalName(signal) : null,
  };
}

function signalName(signal: number): string {
  return SIGNAL_NAMES.get(signal) ?? `SIG${signal}`;
}
