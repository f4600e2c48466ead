/**
 * What a terminal_start says when the PTY code cannot load: node-pty's native module is missing
 * or was built for another Node or system (an install that skipped or failed node-pty's build), or
 * agent-tty's own files are incomplete. The server stays up; every start fails with this, and
 * `agent-tty doctor` gives the same fix. Imports no node-pty (only spawn.ts does).
 * @see spec/errors.md (SPAWN_FAILED)
 */
import { TerminalError } from '../shared/errors.js';

/** The command that installs agent-tty with node-pty's build allowed. */
const REINSTALL_COMMAND = 'npm install -g --allow-scripts=node-pty agent-tty';
/** The command that rebuilds node-pty in place, in agent-tty's install directory. */
const REBUILD_COMMAND = 'cd "$(npm root -g)/agent-tty" && npm rebuild node-pty';

/** How to fix a node-pty that does not load or spawn, for a person (agent-tty doctor). */
export const PTY_FIX = `reinstall with \`${REINSTALL_COMMAND}\` or rebuild in place with \`${REBUILD_COMMAND}\``;

/** The first line of what a failed load threw. */
function loadFailureReason(err: unknown): string {
  const message = (err as Error)?.message ?? String(err);
  return message.split('\n')[0] ?? message;
}

/** Whether a failed load of the PTY code is node-pty's (its module or native binary). */
function isNativePtyFailure(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException)?.code;
  const message = (err as Error)?.message ?? String(err);
  return code === 'ERR_DLOPEN_FAILED' || /node-pty|pty\.node|native module/i.test(message);
}

/** SPAWN_FAILED for every terminal_start while the PTY code cannot be loaded. */
export function ptyUnavailableError(err: unknown): TerminalError {
  if (err instanceof TerminalError && err.code === 'SPAWN_FAILED') return err;
  const reason = loadFailureReason(err);
  const native = isNativePtyFailure(err);
  const what = native
    ? 'node-pty, the native module that runs programs in a terminal, could not be loaded'
    : "agent-tty's terminal code could not be loaded";
  return new TerminalError(
    'SPAWN_FAILED',
    `${what} (${reason}), so no shell or other program can start until the install is fixed: ${PTY_FIX}; \`agent-tty doctor\` checks the install; then try again (if it still fails, restart the MCP client)`,
    native ? { nativeModule: 'node-pty', reason } : { reason },
    { cause: err },
  );
}
