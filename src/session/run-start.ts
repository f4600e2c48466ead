/**
 * Starting a terminal end to end, for terminal_start: check the timing arguments, spawn through
 * the registry, then either observe the first settled screen or, with waitForExit, run the
 * program to completion (a one-shot run) and optionally close the session (not when the run
 * stopped early because the program waits for input). A failure after the
 * spawn carries the sessionId, the recording fields and the latest screen.
 * @see spec/tools.md (terminal_start)
 */
import { TerminalError } from '../shared/errors.js';
import { withLatestScreen } from './latest-screen.js';
import { type LaunchDefaults, type LaunchRequest, planLaunch } from './launch.js';
import {
  checkSettleTiming,
  type ObserveDefaults,
  observeOptions,
  observeSession,
  type SettleRequest,
} from './observation.js';
import type { SessionRegistry } from './registry.js';
import type { Session, Snapshot } from './session.js';
import { waitForCondition } from './wait.js';

/** How long a one-shot run may take when the call gives no timeoutMs. */
export const DEFAULT_EXIT_TIMEOUT_MS = 60_000;

export interface StartRequest extends LaunchRequest, SettleRequest {
  readonly cols?: number | undefined;
  readonly rows?: number | undefined;
  readonly record?: boolean | undefined;
  readonly waitForExit?: boolean | undefined;
  readonly timeoutMs?: number | undefined;
  readonly autoClose?: boolean | undefined;
  readonly scrollbackLines?: number | undefined;
  /** waitForExit: false keeps waiting when the program asks for input (default true). */
  readonly stopOnInput?: boolean | undefined;
}

export interface StartDefaults extends ObserveDefaults {
  readonly defaultCols: number;
  readonly defaultRows: number;
}

export interface StartOptions {
  readonly defaults: StartDefaults;
  readonly launch: LaunchDefaults;
  readonly signal?: AbortSignal | undefined;
  /** The starting MCP client's name, for terminal_list. */
  readonly client?: string | undefined;
  readonly onProgress?: ((elapsedMs: number, timeoutMs: number, what: string) => void) | undefined;
}

export interface StartOutcome {
  readonly session: Session;
  readonly snapshot: Snapshot;
  /** waitForExit: the program was still running at the timeout. */
  readonly timedOut: boolean;
  /** waitForExit: the run ended early because the program waits for input (early-stop.ts). */
  readonly inputRequired: boolean;
  /**
   * autoClose: whether the session was closed after the run; false when the run stopped early
   * because the program waits for input (an early stop never ends the program).
   */
  readonly closed?: boolean;
}

/** Starts a session and returns its first settled screen, or its screen after a one-shot run. */
export async function runStart(
  registry: SessionRegistry,
  request: StartRequest,
  options: StartOptions,
): Promise<StartOutcome> {
  checkSettleTiming(request, options.defaults);
  if (request.timeoutMs !== undefined && !request.waitForExit) {
    throw new TerminalError(
      'INVALID_ARGUMENT',
      'timeoutMs applies only with waitForExit:true; add it, or bound the first observation with settleTimeoutMs',
      { timeoutMs: request.timeoutMs },
    );
  }
  if (request.stopOnInput !== undefined && !request.waitForExit) {
    throw new TerminalError(
      'INVALID_ARGUMENT',
      'stopOnInput applies only with waitForExit:true; add it, or leave stopOnInput out',
      { stopOnInput: request.stopOnInput },
    );
  }
  const session = await registry.start({
    plan: planLaunch(request, options.launch),
    cols: request.cols ?? options.defaults.defaultCols,
    rows: request.rows ?? options.defaults.defaultRows,
    record: request.record,
    client: options.client,
  });
  const scrollbackLines = request.scrollbackLines ?? 0;
  let snapshot: Snapshot;
  let ending: ExitWaitEnding = 'exited';
  try {
    if (request.waitForExit) {
      ending = await runToExit(session, request, options);
      await session.screen.whenParsed();
      // An input stop was confirmed by an output barrier on a quiet screen: that is settled.
      const observed = ending === 'timeout' ? 'none' : ending === 'input' ? 'input' : 'exited';
      snapshot = session.snapshot(observed, scrollbackLines);
    } else {
      snapshot = await observeSession(
        session,

        observeOptions(options.defaults, request, options.signal),
        scrollbackLines,
      );
    }
  } catch (err) {
    throw withLatestScreen(err, session, 'terminal_start').withPartial(recordingFields(session));
  }
  const outcome = {
    session,
    snapshot,
    timedOut: ending === 'timeout',
    inputRequired: ending === 'input',
  };
  if (!request.autoClose) return outcome;
  // The program asks something and may hold work in progress (a download, a build): it stays.
  if (outcome.inputRequired) return { ...outcome, closed: false };
  return { ...outcome, closed: await registry.close(session.id, 'autoClose') };
}

/** The recording path, or why the session is not recorded although that was asked. */
export function recordingFields(session: Session): Record<string, unknown> {
  return {
    ...(session.recording ? { recording: session.recording } : {}),
    ...(session.recordingError !== undefined ? { recordingError: session.recordingError } : {}),
  };
}

/** How a one-shot run's wait ended: the exit, the timeout, or the program waiting for input. */
type ExitWaitEnding = 'exited' | 'timeout' | 'input';

/** Waits for the program to exit, at most the request's timeout, unless it waits for input. */
async function runToExit(
  session: Session,
  request: StartRequest,
  options: StartOptions,
): Promise<ExitWaitEnding> {
  const outcome = await waitForCondition(
    session,
    { kind: 'exit' },
    {
      timeoutMs: request.timeoutMs ?? DEFAULT_EXIT_TIMEOUT_MS,
      stopOnInput: request.stopOnInput !== false,
      signal: options.signal,
      onProgress:
        options.onProgress &&
        ((elapsed, total) =>
          options.onProgress?.(elapsed, total, 'waiting for the program to exit')),
    },
  );
  return outcome.reason === 'timeout' || outcome.reason === 'input' ? outcome.reason : 'exited';
}
