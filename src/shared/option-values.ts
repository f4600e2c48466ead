/**
 * How a flag's or environment variable's value is read (config.ts): integers in a range, byte
 * counts with a K, M or G suffix, on/off, a log level. A bad value is INVALID_ARGUMENT, which the
 * command line shows as one line. Pure.
 */
import { TerminalError } from './errors.js';
import { LOG_LEVELS, type LogLevel } from './log.js';

export function integer(min: number, max: number) {
  return (raw: string): number => {
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw configError(`expected an integer from ${min} to ${max}, got "${raw}"`);
    }
    return n;
  };
}

/** A byte count: an integer, optionally with a K, M or G suffix (powers of 1024). */
export function byteSize(min: number, max: number) {
  return (raw: string): number => {
    const match = /^\s*(\d+)\s*([KMG]?)i?B?\s*$/i.exec(raw);
    const unit = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[match?.[2]?.toUpperCase() ?? ''];
    const n = match && unit ? Number(match[1]) * unit : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw configError(
        `expected a byte count from ${min} to ${max} (K, M or G suffix allowed, as in 32M), got "${raw}"`,
      );
    }
    return n;
  };
}

export function onOff(raw: string): boolean {
  if (raw === '1' || raw === '0') return raw === '1';
  throw configError(`expected 1 (on) or 0 (off), got "${raw}"`);
}

export function logLevel(raw: string): LogLevel {
  if (!(LOG_LEVELS as string[]).includes(raw)) {
    throw configError(`expected one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return raw as LogLevel;
}

/** A bad flag or environment value: INVALID_ARGUMENT, shown by the command line as one line. */
export function configError(message: string): TerminalError {
  return new TerminalError('INVALID_ARGUMENT', message);
}
