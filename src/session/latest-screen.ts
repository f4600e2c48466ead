/**
 * The one place a failure gets the session's latest screen: every error of a call that reached
 * a session carries its sessionId and, while the session is still open, the screen as it is now.
 */
import { type TerminalError, toTerminalError } from '../shared/errors.js';
import type { Session } from './session.js';

/** `err` as a TerminalError with the session's id and latest snapshot (fields already set win). */
export function withLatestScreen(err: unknown, session: Session, where: string): TerminalError {
  const error = toTerminalError(err, where);
  if (session.isClosed) return error.withPartial({ sessionId: session.id });
  return error.withPartial({ sessionId: session.id, snapshot: session.snapshot('none') });
}
