/**
 * Bearer authentication of the HTTP transport (spec/http.md, Authentication): the token is
 * compared in constant time (SHA-256 digests, timingSafeEqual), a token in the URL is refused,
 * and each address's failures delay its next refusals, in bounded memory. Pure but for the clock.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** Addresses whose failures are remembered; the oldest is forgotten first. */
export const MAX_TRACKED_ADDRESSES = 4096;
/** The first refusal's delay; each further failure doubles it, up to MAX_FAILURE_DELAY_MS. */
export const BASE_FAILURE_DELAY_MS = 50;
export const MAX_FAILURE_DELAY_MS = 2000;
/** An address's failures are forgotten after this long without one. */
export const FAILURE_MEMORY_MS = 60_000;

export type AuthVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'missing' | 'invalid' | 'in-url' };

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** Checks the Authorization header and URL of a request against the token. */
export function createBearerCheck(token: string) {
  const expected = digest(token);
  return (authorization: string | undefined, url: string): AuthVerdict => {
    // Any query string is refused: credentials in a URL end up in logs and histories.
    if (url.includes('?')) return { ok: false, reason: 'in-url' };
    const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
    if (!match) return { ok: false, reason: 'missing' };
    const ok = timingSafeEqual(digest(match[1] as string), expected);
    return ok ? { ok: true } : { ok: false, reason: 'invalid' };
  };
}

interface Failures {
  count: number;
  lastMs: number;
}

/**
 * How long to hold each refusal for an address: nothing for an address without recent
 * failures (honest clients are never slowed), then 50 ms doubling to 2 s.
 */
export class FailureDelay {
  private readonly _byAddress = new Map<string, Failures>();

  constructor(
    private readonly _now: () => number = () => performance.now(),
    private readonly _maxAddresses = MAX_TRACKED_ADDRESSES,
  ) {}

  /**
   * Records a failure from `address`: how long to wait before answering it, and how many
   * failures the address has had in a row (for a log that does not grow with an attack).
   */
  fail(address: string): { readonly delayMs: number; readonly count: number } {
    const now = this._now();
    const known = this._byAddress.get(address);
    const fresh = known !== undefined && now - known.lastMs < FAILURE_MEMORY_MS;
    const count = fresh ? known.count + 1 : 1;
    // Re-inserted so the map's order is by last failure: the first entry is the one to forget.
    this._byAddress.delete(address);
    this._byAddress.set(address, { count, lastMs: now });
    while (this._byAddress.size > this._maxAddresses) {
      this._byAddress.delete(this._byAddress.keys().next().value as string);
    }
    const delayMs = Math.min(
      BASE_FAILURE_DELAY_MS * 2 ** Math.min(count - 1, 16),
      MAX_FAILURE_DELAY_MS,
    );
    return { delayMs, count };
  }

  get size(): number {
    return this._byAddress.size;
  }
}
