/**
 * A session's private files, made before its program starts: its shell history, its shell's
 * start-up files with command marks, its transcript's files. Each is optional: a session whose
 * file cannot be made runs without it (shells keep their default history, start without marks;
 * the transcript stays in memory), and the server's log says why.
 */

import type { ChunkStore } from '../screen/chunk-store.js';
import { DEFAULT_CONFIG } from '../shared/config.js';
import type { Logger } from '../shared/log.js';
import type { LaunchPlan } from './launch.js';
import { createSessionHistory, type SessionHistory } from './shell-history.js';
import { createShellIntegration, type ShellIntegration } from './shell-integration.js';
import { placeTranscript } from './transcript-files.js';

export interface SessionFilesSpec {
  readonly id: string;
  readonly plan: LaunchPlan;
  /** Bytes of history lines the transcript keeps (the server's default when absent). */
  readonly transcriptBytes?: number | undefined;
}

export interface SessionFilesOptions {
  readonly logger: Logger;
  /** false: interactive bash, zsh and fish start as they are, without command marks. */
  readonly commandMarks?: boolean | undefined;
  /** Where the transcript's files go (none: kept in memory). */
  readonly transcriptDir?: string | undefined;
}

export interface SessionFiles {
  readonly history: SessionHistory | undefined;
  readonly integration: ShellIntegration | undefined;
  readonly transcript: {
    readonly limitBytes: number;
    readonly store?: ChunkStore | undefined;
    readonly error?: string | undefined;
  };
  /** Removes the history and start-up files now (the transcript goes with the screen). */
  remove(): void;
}

export function openSessionFiles(
  spec: SessionFilesSpec,
  options: SessionFilesOptions,
): SessionFiles {
  const { logger } = options;
  const integration =
    options.commandMarks === false ? undefined : openIntegration(spec, options.logger);
  const limitBytes = spec.transcriptBytes ?? DEFAULT_CONFIG.transcriptBytes;
  const transcript =
    options.transcriptDir === undefined
      ? { limitBytes }
      : placeTranscript(options.transcriptDir, spec.id, limitBytes);
  if (transcript.error) logger.warn(`session ${spec.id}: ${transcript.error}`);
  const history = spec.plan.sessionHistory ? openHistory(spec.id, logger) : undefined;
  return {
    history,
    integration,
    transcript,
    remove: () => {
      history?.remove();
      integration?.remove();
    },
  };
}

/** The session's history directory; without one, shells keep their own default and it is logged. */
function openHistory(sessionId: string, logger: Logger): SessionHistory | undefined {
  try {
    return createSessionHistory(sessionId);
  } catch (err) {
    logger.warn(
      `session ${sessionId}: no private shell history (${(err as Error).message}); its shells use their default history file`,
    );
    return undefined;
  }
}

/** The shell's startup files with command marks; without them the shell starts as it is. */
function openIntegration(spec: SessionFilesSpec, logger: Logger): ShellIntegration | undefined {
  try {
    return createShellIntegration(spec.id, spec.plan);
  } catch (err) {
    logger.warn(
      `session ${spec.id}: no command marks (${(err as Error).message}); its shell starts without them`,
    );
    return undefined;
  }
}
