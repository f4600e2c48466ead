/**
 * DNS-rebinding defence of the HTTP transport (spec/http.md, Browsers): a loopback server
 * answers only requests whose Host names the loopback interface and its port, and any server
 * refuses a request whose Origin is not its own. Pure.
 */
import { formatHttpAuthority, type HttpAddress } from '../shared/http-address.js';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** The Host values a server at `address` accepts; undefined = any (not a loopback bind). */
export function allowedHosts(address: HttpAddress): readonly string[] | undefined {
  if (!address.isLoopback) return undefined;
  const own = formatHttpAuthority(address).toLowerCase();
  return [...new Set([own, ...LOOPBACK_NAMES.map((n) => `${n}:${address.port}`)])];
}

export type OriginVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'host' | 'origin' };

/**
 * Checks a request's Host and Origin headers. A request without Origin (what MCP clients send)
 * passes on its Host; one with an Origin passes only if that is http(s)://HOST of the request.
 */
export function checkHostAndOrigin(
  allowed: readonly string[] | undefined,
  host: string | undefined,
  origin: string | undefined,
): OriginVerdict {
  const h = host?.toLowerCase();
  if (h === undefined || h === '' || (allowed !== undefined && !allowed.includes(h))) {
    return { ok: false, reason: 'host' };
  }
  if (origin === undefined) return { ok: true };
  const o = origin.toLowerCase();
  return o === `http://${h}` || o === `https://${h}`
    ? { ok: true }
    : { ok: false, reason: 'origin' };
}
