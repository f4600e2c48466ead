/**
 * The one error model of agent-tty: a TerminalError carries a stable upper-case code (API: add
 * codes, never rename or reuse them), a message written for the agent, and structured details.
 * spec/errors.md has one row per code.
 */

export const ERROR_CODES = [
  'INVALID_ARGUMENT',
  'SESSION_NOT_FOUND',
  'SESSION_LIMIT',
  'SESSION_EXITED',
  'SESSION_CLOSED',
  'SPAWN_FAILED',
  'INVALID_KEY',
  'MOUSE_NOT_ENABLED',
  'OUT_OF_BOUNDS',
  'RESULT_TOO_LARGE',
  'WAIT_TIMEOUT',
  'INPUT_BACKLOG',
  'PATTERN_TIMEOUT',
  'CANCELLED',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class TerminalError extends Error {
  override readonly name = 'TerminalError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Thrown when a request's AbortSignal fires: the client cancelled or the session closed. */
export function cancelledError(signal: AbortSignal): TerminalError {
  const reason: unknown = signal.reason;
  if (reason instanceof TerminalError) return reason;
  return new TerminalError('CANCELLED', 'the request was cancelled before it finished');
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw cancelledError(signal);
}
