/**
 * The person's terminal size as `agent-tty attach` sends it. A terminal may not know its size
 * yet: `docker exec -t` (and some `kubectl exec -t`) start at 0x0 and set the size a moment later
 * (or only once the window is resized), and Node leaves the size undefined when it cannot read it.
 * Pure.
 * @see spec/attach.md (Size)
 */
import { MAX_TERMINAL_SIZE } from './protocol.js';

/** A size the terminal reported: both at least 1. */
export interface TerminalSize {
  readonly cols: number;
  readonly rows: number;
}

/**
 * The size from a stream's `columns` and `rows`; undefined while the terminal has not reported
 * one (either 0, or not a whole number). A terminal larger than the protocol's bound counts as
 * that large: it is larger than any session.
 */
export function readTerminalSize(columns: unknown, rows: unknown): TerminalSize | undefined {
  const known = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 1;
  if (!known(columns) || !known(rows)) return undefined;
  return { cols: Math.min(columns, MAX_TERMINAL_SIZE), rows: Math.min(rows, MAX_TERMINAL_SIZE) };
}
