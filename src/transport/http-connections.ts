/**
 * Which connections the HTTP transport keeps (spec/http.md, Connections): a connection is
 * unproven until one of its requests carries the token, and is closed if it has not done so
 * within a deadline; unproven connections have their own few slots, the oldest closed when a new
 * one needs room, so connections without the token never take the slots of those with it, even
 * from the same address. Pure but for the clock and the connections' destroy().
 */
import type { Clock } from '../screen/settle.js';

export interface ConnectionLimits {
  /** Connections whose requests carried the token, open at once; past it, 503. */
  readonly maxProvenConnections: number;
  /** Connections that have not (yet) sent the token; a new one past it closes the oldest. */
  readonly maxUnprovenConnections: number;
  /** Time a new connection has to send a request with the token (TLS handshake included). */
  readonly proofDeadlineMs: number;
}

/** What the gate needs of a connection. */
export interface GatedConnection {
  destroy(): void;
}

/** Why the gate closed an unproven connection, for the refusal log. */
export type ConnectionDrop = 'no-token-in-time' | 'unproven-slots-full';

interface Unproven {
  readonly connection: GatedConnection;
  readonly address: string;
  readonly openedMs: number;
  readonly timer: unknown;
  /** A refusal is being held for it (http-auth.ts's delay); it closes the connection itself. */
  isAnswering: boolean;
}

export type ProofVerdict = 'proven' | 'full';

export interface GateDeps {
  readonly clock: Clock;
  /** Told of each connection the gate closes, by its peer's address. */
  readonly onDrop?: (address: string, why: ConnectionDrop) => void;
  /** Runs `fn` once pending I/O has been read (setImmediate in the server): see _expire. */
  readonly afterIo?: (fn: () => void) => void;
}

export class ConnectionGate {
  /** Oldest first: a Map keeps insertion order. */
  private readonly _unproven = new Map<string, Unproven>();
  private readonly _proven = new Map<string, GatedConnection>();

  constructor(
    private readonly _limits: ConnectionLimits,
    private readonly _deps: GateDeps,
  ) {}

  /**
   * A new connection from `address`, known by `key` (that address and the peer's port, unique
   * among open connections) until closed().
   */
  admit(key: string, address: string, connection: GatedConnection): void {
    const afterIo = this._deps.afterIo ?? ((fn: () => void) => fn());
    const timer = this._deps.clock.setTimeout(
      () => afterIo(() => this._expire(key, connection)),
      this._limits.proofDeadlineMs,
    );
    (timer as { unref?: () => void }).unref?.();
    const openedMs = this._deps.clock.now();
    this._unproven.set(key, { connection, address, openedMs, timer, isAnswering: false });
    if (this._unproven.size > this._limits.maxUnprovenConnections) this._evictOldest();
  }

  /** Whether connection `key` has sent a request with the token. */
  isProven(key: string): boolean {
    return this._proven.has(key);
  }

  /**
   * A request of connection `key` carried the token: it is proven from now on, unless
   * maxProvenConnections are proven already ('full': refuse the request and close it).
   */
  prove(key: string): ProofVerdict {
    if (this._proven.has(key)) return 'proven';
    const entry = this._unproven.get(key);
    if (!entry) return 'proven'; // not tracked (closed meanwhile): nothing to count
    if (this._proven.size >= this._limits.maxProvenConnections) return 'full';
    this._deps.clock.clearTimeout(entry.timer);
    this._unproven.delete(key);
    this._proven.set(key, entry.connection);
    return 'proven';
  }

  /**
   * A refusal is held for unproven connection `key`: the deadline leaves it to that refusal,
   * which must be sent within the time returned (what is left of the deadline) and closes the
   * connection. Infinity for a proven connection: nothing to bound.
   */
  hold(key: string): number {
    const entry = this._unproven.get(key);
    if (!entry) return Number.POSITIVE_INFINITY;
    entry.isAnswering = true;
    return Math.max(0, entry.openedMs + this._limits.proofDeadlineMs - this._deps.clock.now());
  }

  /** Connection `key` has closed. */
  closed(key: string, connection: GatedConnection): void {
    const entry = this._unproven.get(key);
    if (entry?.connection === connection) {
      this._deps.clock.clearTimeout(entry.timer);
      this._unproven.delete(key);
    }
    if (this._proven.get(key) === connection) this._proven.delete(key);
  }

  get provenCount(): number {
    return this._proven.size;
  }

  get unprovenCount(): number {
    return this._unproven.size;
  }

  /**
   * The deadline passed. Run after pending I/O: a request that arrived during a busy event loop
   * is parsed (and proves its connection) before this looks.
   */
  private _expire(key: string, connection: GatedConnection): void {
    const entry = this._unproven.get(key);
    if (entry?.connection !== connection || entry.isAnswering) return;
    this._drop(key, entry, 'no-token-in-time');
  }

  /**
   * Closes the oldest unproven connection, even one whose refusal is being held: sparing those
   * would let a client that keeps every slot busy with wrong tokens close each newcomer instead.
   */
  private _evictOldest(): void {
    const oldest = this._unproven.entries().next().value;
    if (oldest) this._drop(oldest[0], oldest[1], 'unproven-slots-full');
  }

  private _drop(key: string, entry: Unproven, why: ConnectionDrop): void {
    this._deps.clock.clearTimeout(entry.timer);
    this._unproven.delete(key);
    this._deps.onDrop?.(entry.address, why);
    entry.connection.destroy();
  }
}
