/**
 * The listening address of `agent-tty serve --http [HOST:]PORT` (spec/http.md): parsed and
 * checked here, pure. HOST defaults to 127.0.0.1; an IPv6 host is written in brackets.
 */
import { isIP } from 'node:net';
import { TerminalError } from './errors.js';

export interface HttpAddress {
  /** As given, without brackets: "127.0.0.1", "::1", "0.0.0.0", "box.example". */
  readonly host: string;
  readonly port: number;
  /** Whether only this machine can reach it: 127.0.0.0/8, ::1 or localhost. */
  readonly isLoopback: boolean;
}

export const DEFAULT_HTTP_HOST = '127.0.0.1';

/** Whether `host` (no brackets) names this machine's loopback interface only. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** Parses "PORT", "HOST:PORT" or "[V6]:PORT"; INVALID_ARGUMENT naming the problem otherwise. */
export function parseHttpAddress(raw: string): HttpAddress {
  const match = /^(?:(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+)):)?(\d{1,5})$/.exec(raw.trim());
  const port = Number(match?.[3]);
  if (!match || !(port >= 0 && port <= 65535)) {
    throw new TerminalError(
      'INVALID_ARGUMENT',
      `--http: expected [HOST:]PORT with a port from 0 to 65535 (0: any free port; e.g. 7681, 127.0.0.1:7681, [::1]:7681), got "${raw}"`,
    );
  }
  const v6 = match[1];
  if (v6 !== undefined && isIP(v6) !== 6) {
    throw new TerminalError('INVALID_ARGUMENT', `--http: "${v6}" is not an IPv6 address`);
  }
  const host = v6 ?? match[2] ?? DEFAULT_HTTP_HOST;
  return { host, port, isLoopback: isLoopbackHost(host) };
}

/** The address as it goes in a URL: an IPv6 host in brackets. */
export function formatHttpAuthority(address: Pick<HttpAddress, 'host' | 'port'>): string {
  const host = isIP(address.host) === 6 ? `[${address.host}]` : address.host;
  return `${host}:${address.port}`;
}
