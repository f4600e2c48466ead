/**
 * What a session is made from: its spec (what to run, at what size, what to keep) and its deps
 * (how processes are spawned and ended, where its files go, what it logs).
 */
import type { PtyEvents, PtyHandle, SpawnOptions } from '../pty/pty-handle.js';
import type { TerminateOptions, TerminateReport } from '../pty/terminate.js';
import type { Logger } from '../shared/log.js';
import type { LaunchPlan } from './launch.js';

/** Quiet after its first text that makes a program ready, unless the deps say otherwise. */
export const DEFAULT_READY_QUIET_MS = 250;

export interface SessionDeps {
  readonly spawn: (options: SpawnOptions, events: PtyEvents) => PtyHandle;
  readonly terminate: (
    sid: number,
    ttyPath: string,
    options: TerminateOptions,
  ) => Promise<TerminateReport>;
  readonly terminateOptions: TerminateOptions;
  readonly logger: Logger;
  /** false turns the input-wait signal off (settlement then uses the quiet interval only). */
  readonly inputWaitProbe?: boolean;
  /** false: interactive bash, zsh and fish start as they are, without command marks. */
  readonly commandMarks?: boolean;
  /** Quiet after its first text that makes a program ready (the default quiet interval). */
  readonly readyQuietMs?: number;
  /** Where the transcript's files go (session/transcript-files.ts); none: kept in memory. */
  readonly transcriptDir?: string;
}

export interface SessionSpec {
  readonly id: string;
  readonly plan: LaunchPlan;
  readonly cols: number;
  readonly rows: number;
  readonly scrollbackLines: number;
  /** Bytes of history lines the session's transcript keeps (the server's default when absent). */
  readonly transcriptBytes?: number | undefined;
  /** Directory to record an asciicast file in, when the session is recorded. */
  readonly recordDir?: string | undefined;
}
