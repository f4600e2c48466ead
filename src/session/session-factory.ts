/**
 * The session factory: what a terminal needs at run time (the emulator, the PTY and process
 * control) wired into Session. serve.ts loads it with the first terminal_start rather than at
 * start-up, so the server answers initialize at once; `agent-tty test` uses it directly.
 */

import { sharedMatchPool } from '../match/match-pool.js';
import { spawnPty } from '../pty/spawn.js';
import { terminateSession } from '../pty/terminate.js';
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/log.js';
import type { SessionFactory } from './registry.js';
import { Session } from './session.js';
import { defaultTranscriptDir } from './transcript-files.js';

export function createSessionFactory(config: Config, logger: Logger): SessionFactory {
  const deps = {
    spawn: spawnPty,
    terminate: terminateSession,
    terminateOptions: {
      hangupGraceMs: config.hangupGraceMs,
      termGraceMs: config.termGraceMs,
      killGraceMs: 1000,
    },
    logger,
    commandMarks: config.commandMarks,
    readyQuietMs: config.quietMs,
    transcriptDir: config.transcriptDir || defaultTranscriptDir(),
  };
  // Waits and finds run patterns in a worker; start it now rather than at the first search.
  sharedMatchPool().warm();
  return (spec) => new Session(spec, deps);
}
