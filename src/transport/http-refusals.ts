/**
 * The HTTP transport's log of what it refused (spec/http.md, Log of refusals): the first refusal
 * of an address in a minute gets a line at once, the rest are counted and summed up per address
 * when the minute ends, so no client can grow the log faster than a few lines a minute. Bounded:
 * at most MAX_SUMMED_ADDRESSES addresses are counted, the rest in one sum. Pure but for the clock.
 */
import type { Clock } from '../screen/settle.js';

export type RefusalReason =
  | 'path'
  | 'host'
  | 'origin'
  | 'missing-token'
  | 'wrong-token'
  | 'token-in-url'
  | 'connections-full'
  | 'no-token-in-time'
  | 'unproven-slots-full';

const SAID: Record<RefusalReason, string> = {
  path: 'a path other than /mcp',
  host: 'a bad Host',
  origin: 'a foreign Origin',
  'missing-token': 'no bearer token',
  'wrong-token': 'a wrong bearer token',
  'token-in-url': 'a query string',
  'connections-full': 'too many connections with the token',
  'no-token-in-time': 'a connection closed: no token in time',
  'unproven-slots-full': 'a connection closed: too many without a token',
};

/** The time over which refusals are summed. */
export const REFUSAL_WINDOW_MS = 60_000;
/** Addresses counted in one window; refusals from further ones go into one sum. */
export const MAX_SUMMED_ADDRESSES = 1024;
/** Lines at most per window, for first refusals and for the summary each. */
export const MAX_REFUSAL_LINES = 16;

interface Counts {
  total: number;
  /** Counted since its line at once (or all, if it had none). */
  unsaid: number;
  readonly byReason: Map<RefusalReason, number>;
}

export class RefusalLog {
  private readonly _byAddress = new Map<string, Counts>();
  private _uncounted = 0;
  private _linesAtOnce = 0;
  private _timer: unknown;

  constructor(
    private readonly _write: (line: string) => void,
    private readonly _clock: Clock,
    private readonly _maxAddresses = MAX_SUMMED_ADDRESSES,
  ) {}

  /** One refusal of a request (or a connection) from `address`. */
  record(address: string, reason: RefusalReason): void {
    if (this._timer === undefined) {
      this._timer = this._clock.setTimeout(() => this.flush(), REFUSAL_WINDOW_MS);
      (this._timer as { unref?: () => void }).unref?.();
    }
    let counts = this._byAddress.get(address);
    if (!counts) {
      if (this._byAddress.size >= this._maxAddresses) {
        this._uncounted++;
        return;
      }
      counts = { total: 0, unsaid: 0, byReason: new Map() };
      this._byAddress.set(address, counts);
      if (this._linesAtOnce < MAX_REFUSAL_LINES) {
        this._linesAtOnce++;
        counts.total = 1;
        counts.byReason.set(reason, 1);
        this._write(
          `refused a request from ${address}: ${SAID[reason]} (more from there are summed up once a minute)`,
        );
        return;
      }
    }
    counts.total++;
    counts.unsaid++;
    counts.byReason.set(reason, (counts.byReason.get(reason) ?? 0) + 1);
  }

  /** Writes the summary of the window so far and starts a new one (also at shutdown). */
  flush(): void {
    if (this._timer !== undefined) this._clock.clearTimeout(this._timer);
    this._timer = undefined;
    const unsaid = [...this._byAddress].filter(([, c]) => c.unsaid > 0);
    unsaid.sort((a, b) => b[1].unsaid - a[1].unsaid);
    for (const [address, counts] of unsaid.slice(0, MAX_REFUSAL_LINES)) {
      const reasons = [...counts.byReason]
        .map(([reason, n]) => `${n} × ${SAID[reason]}`)
        .join(', ');
      this._write(
        `refused ${counts.total} requests from ${address} in the last minute or less: ${reasons}`,
      );
    }
    const rest = unsaid.slice(MAX_REFUSAL_LINES);
    const restCount = rest.reduce((sum, [, c]) => sum + c.unsaid, 0) + this._uncounted;
    if (restCount > 0) {
      this._write(
        `refused ${restCount} more requests from ${rest.length}${this._uncounted > 0 ? '+' : ''} other addresses in the last minute or less`,
      );
    }
    this._byAddress.clear();
    this._uncounted = 0;
    this._linesAtOnce = 0;
  }

  /** Addresses counted in this window. */
  get size(): number {
    return this._byAddress.size;
  }
}
