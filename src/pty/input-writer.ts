/**
 * The one path by which bytes reach a program's terminal: the agent's input and the emulator's
 * probe replies, in order, written to the PTY master on the main thread.
 *
 * Why agent-tty owns this instead of node-pty's write stream: node-pty queues what the kernel does
 * not take at once and retries on the bare descriptor number with asynchronous writes, also after
 * the terminal is gone, so queued bytes can land in whatever file or terminal reuses that number
 * next, and a program that never reads makes the retry loop spin. Here every write is
 * synchronous and is preceded, in the same tick, by asking the terminal whether its descriptor is
 * still open; the descriptor is only ever closed on the main thread, so no write can reach a
 * reused number. Nothing is written after close() or once the terminal reports closed: what is
 * still queued is discarded, never delivered elsewhere.
 *
 * Bounds: the caller asks hasRoom() before queueing input (the session refuses a batch with
 * INPUT_BACKLOG beyond its limit); probe replies are dropped, and counted, while more than
 * `replyLimitBytes` of replies wait, so a flood of queries from a program that does not read
 * cannot grow memory. While the program does not read, retries back off to one every
 * RETRY_MAX_MS, so a full terminal costs no CPU.
 */

/** The terminal's master side as the writer sees it. */
export interface TerminalFd {
  /**
   * The descriptor while the terminal is open, or undefined from the moment it is closed. Must
   * be answered from state changed in the same synchronous step that closes the descriptor.
   */
  current(): number | undefined;
}

/** Writes bytes to a descriptor; returns how many were taken, throws an errno error. */
export type WriteSync = (fd: number, data: Uint8Array, offset: number, length: number) => number;

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface InputWriterOptions {
  /** Most input bytes that may wait; hasRoom() answers against it. */
  readonly limitBytes: number;
  /** Most reply bytes that may wait; a reply beyond it is dropped. */
  readonly replyLimitBytes: number;
  readonly write: WriteSync;
  readonly timers?: Timers;
}

/** Retry after a write that made progress and then hit a full buffer. */
const RETRY_AFTER_PROGRESS_MS = 0;
/** First retry after a write attempt that took nothing, doubling up to RETRY_MAX_MS. */
const RETRY_MIN_MS = 1;
const RETRY_MAX_MS = 32;

/** Node timers, unref'd: a pending retry never keeps the process alive. */
export const NODE_TIMERS: Timers = {
  set: (fn, ms) => {
    const handle = setTimeout(fn, ms);
    handle.unref();
    return handle;
  },
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

interface Chunk {
  readonly data: Uint8Array;
  offset: number;
  readonly reply: boolean;
}

export class InputWriter {
  private readonly _queue: Chunk[] = [];
  private _pendingInput = 0;
  private _pendingReplies = 0;
  private _retry: unknown;
  private _backoffMs = RETRY_MIN_MS;
  private _closed = false;
  private _droppedReplies = 0;
  private _discardedBytes = 0;
  private readonly _timers: Timers;

  constructor(
    private readonly _fd: TerminalFd,
    private readonly _options: InputWriterOptions,
  ) {
    this._timers = _options.timers ?? NODE_TIMERS;
  }

  /** Input bytes queued but not yet taken by the terminal. */
  get pendingBytes(): number {
    return this._pendingInput;
  }

  get limitBytes(): number {
    return this._options.limitBytes;
  }

  /** Probe replies dropped because too many were waiting. */
  get droppedReplies(): number {
    return this._droppedReplies;
  }

  /** Bytes discarded at close because the terminal never took them. */
  get discardedBytes(): number {
    return this._discardedBytes;
  }

  get closed(): boolean {
    return this._closed;
  }

  /** Whether `bytes` more input fit under the limit. */
  hasRoom(bytes: number): boolean {
    return this._pendingInput + bytes <= this._options.limitBytes;
  }

  /** Queues input and writes what the terminal takes now. Ignored once closed. */
  write(data: Uint8Array): void {
    if (this._closed || data.length === 0) return;
    this._pendingInput += data.length;
    this._enqueue({ data, offset: 0, reply: false });
  }

  /** Queues a probe reply; false when it was dropped (closed, or too many replies waiting). */
  reply(data: Uint8Array, beforeWrite?: () => void): boolean {
    if (this._closed || data.length === 0) return false;
    if (this._pendingReplies + data.length > this._options.replyLimitBytes) {
      this._droppedReplies++;
      return false;
    }
    beforeWrite?.();
    this._pendingReplies += data.length;
    this._enqueue({ data, offset: 0, reply: true });
    return true;
  }

  /** Stops for good: discards what is queued. Returns the number of bytes discarded. */
  close(): number {
    if (this._closed) return 0;
    this._closed = true;
    if (this._retry !== undefined) this._timers.clear(this._retry);
    this._retry = undefined;
    let discarded = 0;
    for (const chunk of this._queue) discarded += chunk.data.length - chunk.offset;
    this._queue.length = 0;
    this._pendingInput = 0;
    this._pendingReplies = 0;
    this._discardedBytes += discarded;
    return discarded;
  }

  private _enqueue(chunk: Chunk): void {
    this._queue.push(chunk);
    // With a retry scheduled the terminal is full: the retry writes this in order.
    if (this._retry === undefined) this._flush();
  }

  private _flush(): void {
    this._retry = undefined;
    let progressed = false;
    while (!this._closed && this._queue.length > 0) {
      const fd = this._fd.current();
      if (fd === undefined) {
        this.close();
        return;
      }
      const chunk = this._queue[0] as Chunk;
      let taken: number;
      try {
        taken = this._options.write(fd, chunk.data, chunk.offset, chunk.data.length - chunk.offset);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN' || code === 'EWOULDBLOCK' || code === 'EINTR') {
          this._schedule(progressed);
        } else {
          // EIO once the program's side is gone, or any other failure: the terminal takes no
          // more input, and none of it may go anywhere else.
          this.close();
        }
        return;
      }
      if (taken > 0) progressed = true;
      chunk.offset += taken;
      this._account(chunk, taken);
      if (chunk.offset >= chunk.data.length) this._queue.shift();
      else if (taken === 0) {
        this._schedule(progressed);
        return;
      }
    }
    this._backoffMs = RETRY_MIN_MS;
  }

  private _account(chunk: Chunk, taken: number): void {
    if (chunk.reply) this._pendingReplies -= taken;
    else this._pendingInput -= taken;
  }

  private _schedule(progressed: boolean): void {
    let delay: number;
    if (progressed) {
      this._backoffMs = RETRY_MIN_MS;
      delay = RETRY_AFTER_PROGRESS_MS;
    } else {
      delay = this._backoffMs;
      this._backoffMs = Math.min(this._backoffMs * 2, RETRY_MAX_MS);
    }
    this._retry = this._timers.set(() => this._flush(), delay);
  }
}
