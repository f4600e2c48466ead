/**
 * A session's FIFO of work that changes the terminal (input batches, resizes): one job at a time,
 * in arrival order. A job whose request is cancelled while it waits never runs; a running job
 * sees its AbortSignal fire; closing the queue aborts the running job and rejects the waiting
 * ones with the close reason.
 */
import { cancelledError, type TerminalError } from '../shared/errors.js';

export type Job<T> = (signal: AbortSignal) => Promise<T>;

interface Entry {
  readonly job: Job<unknown>;
  readonly controller: AbortController;
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: unknown) => void;
  readonly detach: () => void;
}

export class ActionQueue {
  private _waiting: Entry[] = [];
  private _running: Entry | undefined;
  private _closed: TerminalError | undefined;

  /** Whether a job is running. */
  get isRunning(): boolean {
    return this._running !== undefined;
  }

  /** Jobs waiting plus the one running. */
  get size(): number {
    return this._waiting.length + (this._running ? 1 : 0);
  }

  run<T>(job: Job<T>, signal?: AbortSignal): Promise<T> {
    if (this._closed) return Promise.reject(this._closed);
    if (signal?.aborted) return Promise.reject(cancelledError(signal));
    return new Promise<T>((resolve, reject) => {
      const controller = new AbortController();
      const onAbort = () => {
        const reason = cancelledError(signal as AbortSignal);
        const at = this._waiting.indexOf(entry);
        if (at !== -1) {
          this._waiting.splice(at, 1);
          entry.detach();
          reject(reason);
        } else {
          controller.abort(reason);
        }
      };
      const entry: Entry = {
        job: job as Job<unknown>,
        controller,
        resolve: resolve as (value: unknown) => void,
        reject,
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this._waiting.push(entry);
      this._pump();
    });
  }

  /** Aborts the running job and rejects every waiting one with `reason`. Idempotent. */
  close(reason: TerminalError): void {
    if (this._closed) return;
    this._closed = reason;
    const waiting = this._waiting;
    this._waiting = [];
    for (const entry of waiting) {
      entry.detach();
      entry.reject(reason);
    }
    this._running?.controller.abort(reason);
  }

  private _pump(): void {
    if (this._running) return;
    const entry = this._waiting.shift();
    if (!entry) return;
    this._running = entry;
    let outcome: Promise<unknown>;
    try {
      outcome = entry.job(entry.controller.signal);
    } catch (err) {
      outcome = Promise.reject(err);
    }
    void outcome.then(entry.resolve, entry.reject).finally(() => {
      entry.detach();
      this._running = undefined;
      this._pump();
    });
  }
}
