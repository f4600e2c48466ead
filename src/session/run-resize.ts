/**
 * terminal_resize's pipeline: resize PTY and screen together behind the session's queued input,
 * then observe. A failure carries the latest screen.
 * @see spec/tools.md (terminal_resize)
 */
import { withLatestScreen } from './latest-screen.js';
import {
  checkSettleTiming,
  observeOptions,
  observeSession,
  type SettleRequest,
} from './observation.js';
import type { ObserveCallOptions } from './run-snapshot.js';
import type { Session, Snapshot } from './session.js';

/** Resizes the running session after its queued input, then returns the settled screen. */
export async function resizeSession(
  session: Session,
  request: SettleRequest & { readonly cols: number; readonly rows: number },
  options: ObserveCallOptions,
): Promise<Snapshot> {
  checkSettleTiming(request, options.defaults);
  try {
    session.assertRunning();
    await session.queue.run(() => session.resize(request.cols, request.rows), options.signal);
    return await observeSession(session, observeOptions(options.defaults, request, options.signal));
  } catch (err) {
    throw withLatestScreen(err, session, 'terminal_resize');
  }
}
