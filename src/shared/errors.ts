/**
 * The one error model of agent-tty: a TerminalError carries a stable upper-case code (API: add
 * codes, never rename or reuse them), a message written for the agent, structured details, and
 * the result fields that still describe the failed call (sessionId, progress, latest snapshot).
 * spec/errors.md has one row per code (a unit test holds the two equal).
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
  'INPUT_REQUIRED',
  'INPUT_BACKLOG',
  'NOT_READY',
  'PATTERN_TIMEOUT',
  'CANCELLED',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface TerminalErrorOptions extends ErrorOptions {
  /** Result fields that still describe the call: sessionId, progress, the latest snapshot. */
  readonly partial?: Readonly<Record<string, unknown>> | undefined;
}

export class TerminalError extends Error {
  override readonly name = 'TerminalError';
  /** Result fields that still describe the call, shown beside `error` in the tool result. */
  readonly partial: Readonly<Record<string, unknown>>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
    options: TerminalErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.partial = options.partial ?? {};
  }

  /**
   * This error with more result fields. Fields it already carries win: the layer that failed
   * knows its progress best. A copy, because one error may reach several callers (a closed
   * queue rejects every waiting batch with the same error).
   */
  withPartial(fields: Readonly<Record<string, unknown>>): TerminalError {
    return new TerminalError(this.code, this.message, this.details, {
      cause: this.cause,
      partial: { ...fields, ...this.partial },
    });
  }

  /** This error with another message (a copy, as withPartial). */
  withMessage(message: string): TerminalError {
    return new TerminalError(this.code, message, this.details, {
      cause: this.cause,
      partial: this.partial,
    });
  }
}

/** The next step of every INTERNAL message (spec/errors.md). */
export const REPORT_IT = 'this is a bug in agent-tty: please report it';

/** Any thrown value as a TerminalError; what is not one is a bug: INTERNAL, naming `where`. */
export function toTerminalError(err: unknown, where: string): TerminalError {
  if (err instanceof TerminalError) return err;
  return new TerminalError(
    'INTERNAL',
    `internal error in ${where}: ${(err as Error)?.message ?? String(err)}; ${REPORT_IT}`,
    {},
    { cause: err },
  );
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

/**
 * SESSION_CLOSED, built only here: the session was closed while a call used it, or the server
 * is shutting down (without a sessionId when no session was created yet).
 */
export function sessionClosedError(
  sessionId: string | undefined,
  reason: 'closed' | 'shutdown' = 'closed',
): TerminalError {
  const next =
    reason === 'shutdown'
      ? 'the server is shutting down; start a new session with terminal_start once it runs again'
      : 'start a new one with terminal_start if you still need it';
  if (sessionId === undefined) {
    return new TerminalError(
      'SESSION_CLOSED',
      reason === 'shutdown' ? next : `the session was closed during this call; ${next}`,
    );
  }
  const closed = `session "${sessionId}" was closed`;
  return new TerminalError(
    'SESSION_CLOSED',
    reason === 'shutdown' ? `${closed}: ${next}` : `${closed} during this call; ${next}`,
    { sessionId },
  );
}
