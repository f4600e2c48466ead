/** Failures of session tools carry the session's latest screen whenever it still has one. */
import type { TerminalError } from '../errors.js';
import type { Session } from '../session/session.js';
import { formatSnapshot } from './format.js';
import { ToolFailure } from './result.js';

/** A failure that carries the session's latest screen when there still is one. */
export function failureWithSnapshot(
  error: TerminalError,
  session: Session,
  partial: Record<string, unknown> = {},
): ToolFailure {
  if (session.isClosed) return new ToolFailure(error, { sessionId: session.id, ...partial });
  const snapshot = session.snapshot(false);
  return new ToolFailure(
    error,
    { sessionId: session.id, ...partial, snapshot },
    `latest screen:\n${formatSnapshot(session.id, snapshot)}`,
  );
}
