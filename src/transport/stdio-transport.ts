/**
 * The MCP stdio transport (the SDK's Transport interface, in place of its StdioServerTransport):
 * newline-delimited JSON-RPC on stdin and stdout, with every line answered or deliberately
 * ignored (classify.ts) and everything it buffers bounded (TRANSPORT_LIMITS). Ending the
 * process on stdin EOF or a broken stdout stays with serve.ts. Contract: spec/guarantees.md, Protocol.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { makeTextSafe } from '../screen/text-safety.js';
import { type LineEvent, LineSplitter } from '../shared/line-splitter.js';
import { classifyLine, classifyOverlong, describeId, errorReply, isRequestId } from './classify.js';

export interface TransportLimits {
  /** Longest line read; a longer one is discarded as it streams and answered with an error. */
  readonly maxLineBytes: number;
  /** Requests started and not yet answered, or answered but not yet taken by the client
   * (its reply still buffered); later requests wait, in order. */
  readonly maxInFlight: number;
  /** Output waiting for the client; above it stdin is not read and the server's own
   * notifications (progress, resource updates) are dropped. */
  readonly maxStdoutBacklogBytes: number;
  /** Requests read but waiting to start (bytes, count); above either, stdin is not read. */
  readonly maxQueuedBytes: number;
  readonly maxQueuedRequests: number;
}

export const TRANSPORT_LIMITS: TransportLimits = Object.freeze({
  maxLineBytes: 10 * 1024 * 1024,
  maxInFlight: 16,
  maxStdoutBacklogBytes: 16 * 1024 * 1024,
  maxQueuedBytes: 1024 * 1024,
  maxQueuedRequests: 1024,
});

interface Queued {
  readonly message: JSONRPCMessage;
  readonly key: string;
  readonly bytes: number;
}

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly _splitter: LineSplitter;
  private readonly _queue: Queued[] = [];
  private _queuedBytes = 0;
  /** Ids of requests queued or running: JSON-RPC ids are unique among those in flight. */
  private readonly _pending = new Map<string, 'queued' | 'running'>();
  private _running = 0;
  private _drainWaiters: (() => void)[] = [];
  private _isPaused = false;
  private _isPumping = false;
  private _isClosed = false;

  constructor(
    private readonly _stdin: Readable = process.stdin,
    private readonly _stdout: Writable = process.stdout,
    private readonly _limits: TransportLimits = TRANSPORT_LIMITS,
  ) {
    this._splitter = new LineSplitter(_limits.maxLineBytes);
  }

  async start(): Promise<void> {
    this._stdin.on('data', this._onData);
    this._stdin.on('error', this._onStdinError);
    this._stdout.on('drain', this._onDrain);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const isReply = 'id' in message && ('result' in message || 'error' in message);
    // Its slot stays taken until the reply has left the process: that bounds unread replies.
    const settle = isReply ? this._settle(message.id as RequestId) : undefined;
    if (!('id' in message) && this._isBacklogged()) return; // a notification the client would get late
    if ('error' in message) {
      // Error texts may quote what the client sent (ids, names): shown safely, like screen text.
      const error = { ...message.error, message: makeTextSafe(message.error.message) };
      return this._write({ ...message, error }, settle);
    }
    return this._write(message, settle);
  }

  async close(): Promise<void> {
    if (this._isClosed) return;
    this._isClosed = true;
    this._stdin.off('data', this._onData);
    this._stdin.off('error', this._onStdinError);
    this._stdout.off('drain', this._onDrain);
    if (this._stdin.listenerCount('data') === 0) this._stdin.pause();
    this._queue.length = 0;
    this._pending.clear();
    this._releaseWriters();
    this.onclose?.();
  }

  private readonly _onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this._splitter.push(bytes, this._onLine);
    this._updateReading();
  };

  private readonly _onStdinError = (error: Error): void => {
    this.onerror?.(error);
  };

  private readonly _onDrain = (): void => {
    this._releaseWriters();
    this._updateReading();
  };

  private readonly _onLine = (event: LineEvent): void => {
    if (this._isClosed) return;
    const verdict =
      event.kind === 'line'
        ? classifyLine(event.text)
        : classifyOverlong(event.head, event.tail, this._limits.maxLineBytes);
    switch (verdict.kind) {
      case 'request':
        this._enqueue(verdict.message, verdict.id, event);
        return;
      case 'notification':
        this._notify(verdict.message);
        return;
      case 'response':
        this.onmessage?.(verdict.message);
        return;
      case 'reply':
        void this._write(verdict.reply);
        return;
      case 'ignore':
        this.onerror?.(new Error(`ignored ${verdict.reason} from the client`));
        return;
      default:
        verdict satisfies never;
    }
  };

  private _enqueue(message: JSONRPCMessage, id: RequestId, event: LineEvent): void {
    const key = idKey(id);
    if (this._pending.has(key)) {
      const text = `invalid request: request id ${describeId(id)} is already in use by a request in progress; use a new id`;
      void this._write(errorReply(id, ErrorCode.InvalidRequest, text));
      return;
    }
    const bytes = event.kind === 'line' ? event.text.length : 0;
    this._pending.set(key, 'queued');
    this._queue.push({ message, key, bytes });
    this._queuedBytes += bytes;
    this._pump();
  }

  /** Notifications pass queued requests: a cancellation must reach what it cancels. */
  private _notify(message: JSONRPCMessage): void {
    const requestId = cancelledRequestId(message);
    if (requestId !== undefined) {
      const key = idKey(requestId);
      const state = this._pending.get(key);
      if (state === 'queued') {
        // Never started: drop it. A cancelled request gets no reply (MCP cancellation).
        const index = this._queue.findIndex((q) => q.key === key);
        const [removed] = this._queue.splice(index, 1);
        this._queuedBytes -= removed?.bytes ?? 0;
        this._pending.delete(key);
        return;
      }
      if (state === 'running') {
        // The SDK aborts the handler and sends no reply, so the id is free from now on.
        this._pending.delete(key);
        this._running--;
      }
    }
    this.onmessage?.(message);
    this._pump();
  }

  /** Frees the request's id now; the returned callback frees its slot once the reply is out. */
  private _settle(id: RequestId): (() => void) | undefined {
    const key = idKey(id);
    if (this._pending.get(key) !== 'running') return undefined;
    this._pending.delete(key);
    return () => {
      this._running--;
      this._pump();
    };
  }

  /** Starts queued requests, in order, while the bounds allow. */
  private _pump(): void {
    if (this._isPumping || this._isClosed) return;
    this._isPumping = true;
    try {
      const limits = this._limits;
      while (this._queue.length > 0 && this._running < limits.maxInFlight) {
        const next = this._queue.shift() as Queued;
        this._queuedBytes -= next.bytes;
        this._pending.set(next.key, 'running');
        this._running++;
        this.onmessage?.(next.message);
      }
    } finally {
      this._isPumping = false;
    }
    this._updateReading();
  }

  private _isBacklogged(): boolean {
    return this._stdout.writableLength > this._limits.maxStdoutBacklogBytes;
  }

  /** Stops reading stdin while requests pile up or the client is not taking its output. */
  private _updateReading(): void {
    if (this._isClosed) return;
    const limits = this._limits;
    if (!this._isPaused) {
      const isQueueFull =
        this._queuedBytes > limits.maxQueuedBytes || this._queue.length >= limits.maxQueuedRequests;
      if (!isQueueFull && !this._isBacklogged()) return;
      this._isPaused = true;
      this._stdin.pause();
    } else if (
      !this._isBacklogged() &&
      this._queuedBytes <= limits.maxQueuedBytes / 2 &&
      this._queue.length <= limits.maxQueuedRequests / 2
    ) {
      this._isPaused = false;
      this._stdin.resume();
    }
  }

  private _write(message: JSONRPCMessage, flushed?: () => void): Promise<void> {
    return new Promise((resolve) => {
      if (this._isClosed || !this._stdout.writable) {
        flushed?.();
        resolve();
        return;
      }
      // The callback also runs on a write error (EPIPE), so a slot is never lost.
      const isBelowMark = this._stdout.write(`${JSON.stringify(message)}\n`, () => flushed?.());
      if (isBelowMark) resolve();
      else this._drainWaiters.push(resolve);
    });
  }

  private _releaseWriters(): void {
    const waiters = this._drainWaiters;
    this._drainWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

function idKey(id: RequestId): string {
  return typeof id === 'string' ? `s:${id}` : `n:${id}`;
}

function cancelledRequestId(message: JSONRPCMessage): RequestId | undefined {
  if (!('method' in message) || message.method !== 'notifications/cancelled') return undefined;
  const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return isRequestId(requestId) ? requestId : undefined;
}
