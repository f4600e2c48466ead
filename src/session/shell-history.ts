/**
 * A session's own shell history: a private directory (0700, from mkdtemp) under the system's
 * temporary directory holding the file HISTFILE names, so the commands an agent types stay out
 * of the user's ~/.bash_history and ~/.zsh_history. The session removes it once its processes
 * are gone (shells write their history as they exit, on SIGHUP too).
 * @see spec/tools.md (Shell history)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markPrivateDir } from './private-dirs.js';

export interface SessionHistory {
  /** The path to give shells as HISTFILE; the shell creates the file. */
  readonly file: string;
  /** Removes the directory and what the shells wrote in it; never throws. */
  remove(): void;
}

/** Creates the private directory for one session's history; throws when it cannot. */
export function createSessionHistory(sessionId: string): SessionHistory {
  const dir = mkdtempSync(join(tmpdir(), `agent-tty-history-${sessionId}-`));
  markPrivateDir(dir);
  return {
    file: join(dir, 'history'),
    remove() {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // Already gone, or not ours to remove any more: nothing of the session is lost.
      }
    },
  };
}
