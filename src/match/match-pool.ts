/**
 * Runs agents' regular expressions off the main thread. JavaScript patterns can backtrack for
 * hours ((a+)+$ on a row of a's and a '!'), so each search runs in a worker thread under a time
 * budget: past it, the worker is terminated (V8 interrupts a running match), the search fails
 * with PATTERN_TIMEOUT and a fresh worker takes the next one. Cancelling a search stops its worker
 * the same way. Several workers (up to MAX_WORKERS) serve concurrent searches, and one idle
 * worker is kept ready beside the busy ones (starting one takes 30-300 ms), so one slow pattern
 * holds up only its own call.
 */
import { Worker } from 'node:worker_threads';
import { LIMITS } from '../shared/config.js';
import { cancelledError, REPORT_IT, TerminalError } from '../shared/errors.js';
import type { CompiledQuery } from '../shared/text-query.js';
import {
  type EncodedLines,
  type SearchRequest,
  searchTexts,
  type TextHit,
} from './search-texts.js';

export type { EncodedLines, TextHit } from './search-texts.js';

/** Concurrent searches beyond this wait in line (each is bounded by the budget). */
const MAX_WORKERS = 4;
/** Idle workers kept: the one the next search takes, and the spare beside it. */
const IDLE_WORKERS = 2;
/** A worker holds at most the texts of one search (about 1 MiB at the largest screen+history). */
const WORKER_HEAP_MB = 64;

const WORKER_SOURCE = `'use strict';
const { parentPort } = require('node:worker_threads');
const searchTexts = ${searchTexts.toString()};
parentPort.on('message', (request) => {
  let reply;
  try {
    reply = { hits: searchTexts(request) };
  } catch (err) {
    reply = { error: String((err && err.message) || err) };
  }
  parentPort.postMessage(reply);
});`;

export interface MatchPoolOptions {
  /** Longest one search may run; LIMITS.patternBudgetMs by default. */
  readonly budgetMs?: number;
  readonly maxWorkers?: number;
}

export interface SearchOptions {
  readonly limit: number;
  /** Report empty matches (waits do; a find does not). */
  readonly withEmpty?: boolean;
  readonly signal?: AbortSignal | undefined;
}

interface Job {
  readonly request: SearchRequest;
  readonly resolve: (hits: TextHit[]) => void;
  readonly reject: (err: Error) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

interface Slot {
  readonly worker: Worker;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
  /** The budget starts once the worker runs: starting one takes 30-300 ms on a busy machine. */
  isOnline: boolean;
}

export class MatchPool {
  private readonly _budgetMs: number;
  private readonly _maxWorkers: number;
  private readonly _slots: Slot[] = [];
  private readonly _queue: Job[] = [];
  /** A worker failed before it ran: start workers only for searches from then on, no spares. */
  private _hasFailedStart = false;

  constructor(options: MatchPoolOptions = {}) {
    this._budgetMs = options.budgetMs ?? LIMITS.patternBudgetMs;
    this._maxWorkers = options.maxWorkers ?? MAX_WORKERS;
  }

  /**
   * Every match of `query` in `texts`, strings or lines as UTF-8 bytes (see searchTexts);
   * PATTERN_TIMEOUT past the budget.
   */
  search(
    query: CompiledQuery,
    texts: readonly string[] | EncodedLines,
    options: SearchOptions,
  ): Promise<TextHit[]> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(cancelledError(signal));
    return new Promise((resolve, reject) => {
      const job: Job = {
        request: { ...query, texts, limit: options.limit, withEmpty: options.withEmpty === true },
        resolve,
        reject,
        signal,
        onAbort: () => this._abort(job),
      };
      signal?.addEventListener('abort', job.onAbort, { once: true });
      this._queue.push(job);
      this._dispatch();
    });
  }

  /** Starts a worker ahead of the first search, so it does not wait for one to boot. */
  warm(): void {
    this._ensureSpare();
  }

  /** Stops every worker; searches in flight or waiting fail with `reason`. */
  close(reason: Error = new TerminalError('CANCELLED', 'the server is shutting down')): void {
    for (const job of this._queue.splice(0)) this._settle(job, reason);
    for (const slot of [...this._slots]) {
      if (slot.job) this._settle(slot.job, reason);
      this._drop(slot);
    }
  }

  /** How many workers are running (for tests and logs). */
  get workerCount(): number {
    return this._slots.length;
  }

  private _dispatch(): void {
    while (this._queue.length > 0) {
      const slot = this._slots.find((s) => !s.job) ?? this._spawn();
      if (!slot) break;
      const job = this._queue.shift() as Job;
      slot.job = job;
      // A search in flight keeps the process alive; an idle worker does not.
      slot.worker.ref();
      if (slot.isOnline) this._startBudget(slot);
      slot.worker.postMessage(job.request);
    }
    this._ensureSpare();
  }

  private _ensureSpare(): void {
    if (!this._hasFailedStart && !this._slots.some((s) => !s.job)) this._spawn();
  }

  private _spawn(): Slot | undefined {
    if (this._slots.length >= this._maxWorkers) return undefined;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      stdout: false,
      stderr: false,
    });
    const slot: Slot = { worker, job: undefined, timer: undefined, isOnline: false };
    worker.once('online', () => {
      slot.isOnline = true;
      if (slot.job) this._startBudget(slot);
    });
    worker.on('message', (reply: { hits?: TextHit[]; error?: string }) => this._reply(slot, reply));
    worker.on('error', (err) => this._fail(slot, err));
    // An idle worker must not keep the process alive; after the listeners, since adding a
    // 'message' listener refs the worker again.
    worker.unref();
    this._slots.push(slot);
    return slot;
  }

  private _startBudget(slot: Slot): void {
    slot.timer = setTimeout(() => this._timeout(slot), this._budgetMs);
  }

  private _reply(slot: Slot, reply: { hits?: TextHit[]; error?: string }): void {
    const job = slot.job;
    clearTimeout(slot.timer);
    slot.job = undefined;
    slot.timer = undefined;
    slot.worker.unref();
    if (job) {
      if (reply.hits) this._settle(job, reply.hits);
      else this._settle(job, patternError(job.request, reply.error ?? 'unknown error'));
    }
    const idle = this._slots.filter((s) => !s.job);
    if (this._queue.length === 0 && idle.length > IDLE_WORKERS) this._drop(slot);
    this._dispatch();
  }

  private _timeout(slot: Slot): void {
    const job = slot.job;
    this._drop(slot);
    if (job) {
      this._settle(
        job,
        new TerminalError(
          'PATTERN_TIMEOUT',
          `pattern /${job.request.source}/ ran longer than ${this._budgetMs} ms over ${lineCount(job.request.texts)} lines of text and was stopped; rewrite it without nested or overlapping quantifiers such as (a+)+ or (a|a)*, anchor it, or search literal text`,
          { pattern: job.request.source, budgetMs: this._budgetMs },
        ),
      );
    }
    this._dispatch();
  }

  private _abort(job: Job): void {
    const queued = this._queue.indexOf(job);
    if (queued !== -1) this._queue.splice(queued, 1);
    const slot = this._slots.find((s) => s.job === job);
    // A match cannot be interrupted from outside but by stopping its thread.
    if (slot) this._drop(slot);
    this._settle(job, cancelledError(job.signal as AbortSignal));
    this._dispatch();
  }

  private _fail(slot: Slot, err: Error): void {
    const job = slot.job;
    if (!slot.isOnline) this._hasFailedStart = true;
    this._drop(slot);
    if (job) {
      this._settle(
        job,
        new TerminalError(
          'INTERNAL',
          `the pattern worker failed: ${err.message}; ${REPORT_IT}`,
          {},
          { cause: err },
        ),
      );
    }
    this._dispatch();
  }

  private _drop(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.job = undefined;
    const at = this._slots.indexOf(slot);
    if (at !== -1) this._slots.splice(at, 1);
    slot.worker.removeAllListeners('message');
    slot.worker.on('error', () => undefined);
    void slot.worker.terminate();
  }

  private _settle(job: Job, outcome: TextHit[] | Error): void {
    job.signal?.removeEventListener('abort', job.onAbort);
    if (outcome instanceof Error) job.reject(outcome);
    else job.resolve(outcome);
  }
}

function lineCount(texts: readonly string[] | EncodedLines): number {
  return Array.isArray(texts) ? texts.length : (texts as EncodedLines).ends.length;
}

/** A pattern that compiled but threw while matching (the engine's stack overflowed). */
function patternError(request: SearchRequest, message: string): TerminalError {
  return new TerminalError(
    'INVALID_ARGUMENT',
    `pattern /${request.source}/ could not be matched: ${message}; simplify it or search literal text`,
    { pattern: request.source },
  );
}

let shared: MatchPool | undefined;

/** The process's pool, started with the first search. */
export function sharedMatchPool(): MatchPool {
  shared ??= new MatchPool();
  return shared;
}

/** Stops the process's pool, if it started: at shutdown, so no search outlives its sessions. */
export function closeSharedMatchPool(): void {
  shared?.close();
}
