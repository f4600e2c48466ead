/**
 * When a session's program is ready: it has drawn its first screen and can take input. An
 * interactive shell with command marks is ready once it waits for input at its prompt (without
 * the probe: its first prompt mark, then quiet); any other program once it waits for input (the
 * input-wait probe, Linux), has exited, or has printed text and then gone quiet using next to no
 * CPU (or gone on printing, more than a spinner, for a second). A blank screen is not ready: programs print nothing for 0.3-3 s after
 * start (a version manager's shim, a login profile, a TUI gathering data). Readiness is latched:
 * once ready, a session stays ready. Starts wait for it (the first screen a start returns is a
 * real one), and input sent before it waits too (type-ahead a program would drop or that would
 * break a shell's start-up), for at most READY_TIMEOUT_MS from the start.
 * @see spec/guarantees.md (Readiness)
 */
import { type Clock, systemClock } from '../screen/settle.js';
import { formatDuration } from '../shared/duration.js';
import { cancelledError, TerminalError } from '../shared/errors.js';

/** How long a start waits for its program to be ready, and how long input is held for it. */
export const READY_TIMEOUT_MS = 10_000;
/**
 * A program that has printed text for this long, READY_STREAMING_BYTES of it or more, is ready
 * though it never goes quiet (a program printing as it works); a spinner is not enough.
 */
export const READY_STREAMING_MS = 1000;
export const READY_STREAMING_BYTES = 4096;
/** CPU a program may use while quiet and be ready: this, plus a tenth of the quiet interval. */
const READY_CPU_SLACK_MS = 20;
/** How often readiness is looked at while output does not say (the probe reads /proc). */
const READY_POLL_MS = 20;

/** What readiness is judged from (a Session). */
export interface ReadinessSource {
  readonly status: 'running' | 'exited';
  readonly isClosed: boolean;
  /** The shell prints command marks: it is ready at its first prompt mark. */
  readonly hasCommandMarks: boolean;
  /** Whether a prompt mark (OSC 133 A) has arrived. */
  hasPromptMark(): boolean;
  /** Whether the probe can judge input waits (Linux). */
  readonly detectsInputWait: boolean;
  isWaitingForInput(): boolean;
  /** Whether the session's own program (the shell) waits for input, whatever else its group does. */
  leaderWaitsForInput(): boolean;
  /** Whether the screen or its history holds any text. */
  hasText(): boolean;
  readonly lastParsedAt: number;
  readonly pendingBytes: number;
  /** Bytes of output received so far. */
  readonly outputBytes: number;
  /** CPU time the foreground process group has used so far, where it can be read. */
  foregroundCpuMs(): number | undefined;
  subscribe(listener: () => void): () => void;
}

export interface ReadinessOptions {
  /** When the session started (performance.now()). */
  readonly startedAt: number;
  /** Quiet after the first text that makes a program the probe cannot judge ready. */
  readonly quietMs: number;
  /** performance.now() and real timers by default; tests pass a fake one. */
  readonly clock?: Clock;
}

export class Readiness {
  private _readyAt: number | undefined;
  /** When text first appeared, and the output received by then. */
  private _textAt: number | undefined;
  private _bytesAtText = 0;
  /** The foreground group's CPU time when the output last went quiet. */
  private _cpuMark:
    | { readonly parsedAt: number; readonly at: number; readonly cpuMs: number }
    | undefined;
  private readonly _clock: Clock;

  constructor(
    private readonly _source: ReadinessSource,
    private readonly _options: ReadinessOptions,
  ) {
    this._clock = _options.clock ?? systemClock;
  }

  private _now(): number {
    return this._clock.now();
  }

  /** When the session became ready (performance.now()), if it has. */
  get readyAt(): number | undefined {
    return this._readyAt;
  }

  /** Whether the program is ready now; latched once it is. */
  isReady(): boolean {
    if (this._readyAt !== undefined) return true;
    const s = this._source;
    if (s.status === 'exited' || s.isClosed || this._judge()) {
      this._readyAt = this._now();
      return true;
    }
    return false;
  }

  /** Whether the start-up window (READY_TIMEOUT_MS from the start) is over. */
  isStartupOver(): boolean {
    return this.startupLeftMs() === 0;
  }

  /** What is left of the start-up window, in ms (0: over). */
  startupLeftMs(): number {
    return Math.max(0, READY_TIMEOUT_MS - (this._now() - this._options.startedAt));
  }

  /**
   * Whether input may go now: the program is ready, or has drawn something (a program other than
   * a shell reads keys once it draws: top's `q`), or the start-up window is over.
   */
  mayTakeInput(): boolean {
    if (this.isReady() || this.isStartupOver()) return true;
    return !this._source.hasCommandMarks && this._textAt !== undefined;
  }

  /**
   * Resolves true once the program is ready, false once the start-up window is over first;
   * rejects when `signal` aborts.
   */
  whenReady(signal?: AbortSignal): Promise<boolean> {
    if (this.isReady()) return Promise.resolve(true);
    if (this.isStartupOver()) return Promise.resolve(false);
    return new Promise((resolve, reject) => {
      const finish = (ready: boolean | Error) => {
        this._clock.clearTimeout(timer);
        unsubscribe();
        signal?.removeEventListener('abort', onAbort);
        if (ready instanceof Error) reject(ready);
        else resolve(ready);
      };
      const look = () => {
        if (this.isReady()) finish(true);
        else if (this.isStartupOver()) finish(false);
      };
      const onAbort = () => finish(cancelledError(signal as AbortSignal));
      const poll = () => {
        timer = this._clock.setTimeout(poll, READY_POLL_MS);
        look();
      };
      let timer = this._clock.setTimeout(poll, READY_POLL_MS);
      const unsubscribe = this._source.subscribe(look);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort();
    });
  }

  private _judge(): boolean {
    const s = this._source;
    if (s.hasCommandMarks) {
      // A shell is ready at its prompt: waiting for input there (its prompt mark comes before
      // the rest of PROMPT_COMMAND, which can take a second: a version manager's hook). Also
      // when a startup file asks something, or its marks never come. At its prompt, the shell
      // itself waiting is enough: a job it started in the background may share its process
      // group and keep it busy (fish's first run generates completions for a minute). Without
      // the probe, its first prompt mark and then quiet.
      if (s.detectsInputWait) {
        return s.isWaitingForInput() || (s.hasPromptMark() && s.leaderWaitsForInput());
      }
      return s.hasPromptMark() && this._isQuiet();
    }
    if (s.detectsInputWait && s.isWaitingForInput()) return true;
    if (this._textAt === undefined && s.hasText()) {
      this._textAt = this._now();
      this._bytesAtText = s.outputBytes;
    }
    if (this._textAt === undefined) return false;
    // Text, then quiet with next to no CPU (a banner, then loading is not ready); or text that
    // keeps coming (a program printing as it works).
    const idle = this._isIdle();
    if (this._isQuiet() && idle) return true;
    return (
      this._now() - this._textAt >= READY_STREAMING_MS &&
      s.outputBytes - this._bytesAtText >= READY_STREAMING_BYTES
    );
  }

  private _isQuiet(): boolean {
    const s = this._source;
    return s.pendingBytes === 0 && this._now() - s.lastParsedAt >= this._options.quietMs;
  }

  /**
   * Whether the foreground group has used next to no CPU since the output last changed (read at
   * the first look after each change: looks come every READY_POLL_MS or on output).
   */
  private _isIdle(): boolean {
    const s = this._source;
    const cpuMs = s.foregroundCpuMs();
    if (cpuMs === undefined) return true;
    if (this._cpuMark?.parsedAt !== s.lastParsedAt) {
      this._cpuMark = { parsedAt: s.lastParsedAt, at: this._now(), cpuMs };
      return false;
    }
    const elapsed = this._now() - this._cpuMark.at;
    return cpuMs - this._cpuMark.cpuMs <= READY_CPU_SLACK_MS + elapsed / 10;
  }
}

/**
 * NOT_READY, built only here: input held for a program that did not become ready within its
 * start-up window; nothing of the batch was sent.
 */
export function notReadyError(
  sessionId: string,
  waitedMs: number,
  foreground: { readonly pid: number; readonly command: string } | undefined,
): TerminalError {
  const running = foreground
    ? `; its foreground process is ${foreground.command} (pid ${foreground.pid})`
    : '';
  return new TerminalError(
    'NOT_READY',
    `session "${sessionId}" is not ready for input: in the ${formatDuration(READY_TIMEOUT_MS)} since it started, its program has shown no prompt or screen and has not waited for input${running}; nothing was sent (held for ${formatDuration(Math.round(waitedMs))}). Read the attached screen, then send again with terminal_input (input is no longer held), or close it with terminal_close`,
    {
      sessionId,
      waitedMs: Math.round(waitedMs),
      ...(foreground ? { foreground: { pid: foreground.pid, command: foreground.command } } : {}),
    },
  );
}
