/**
 * Command marks for the interactive bash, zsh and fish shells a session starts: shell
 * integration (OSC 133 marks, tagged with the session's nonce) injected without touching the
 * user's files or prompt. Each session gets a private directory (0700, from mkdtemp) holding
 * startup files that read the user's usual ones first, then add hooks that print the marks:
 * bash reads ours with --rcfile, zsh through ZDOTDIR, fish with --init-command. The file that
 * holds the nonce empties itself as the shell reads it; after the user's files they put the
 * session's PATH entries first again (client-path.ts). The session removes the directory once
 * the shell's first mark arrives, and when it closes. Startup file text is in bash-script.ts and
 * shell-scripts.ts.
 * @see spec/tools.md (Command marks)
 */
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createPrivateFile } from '../shared/private-files.js';
import { bashRc } from './bash-script.js';
import { CLIENT_PATH_VARIABLE } from './client-path.js';
import { markPrivateDir } from './private-dirs.js';
import { fishInit, quoteFish, ZSH_FILES, ZSH_MARKS, zshFile, zshMarks } from './shell-scripts.js';

/** The shells that get command marks. */
export type MarkedShell = 'bash' | 'zsh' | 'fish';

/** What is spawned: the program, its arguments and environment. */
export interface ShellLaunch {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** The shell starts as a login shell. */
  readonly login: boolean;
  /** null for an interactive shell; a command line otherwise. */
  readonly command: string | null;
}

export interface ShellIntegration {
  /** The nonce the shell's marks carry (`aid=<nonce>`). */
  readonly nonce: string;
  /** The launch with the startup files injected. */
  readonly launch: ShellLaunch;
  /** Removes the directory (again: a no-op); never throws. */
  remove(): void;
}

/** Which shell `launch` starts interactively, when it is one that gets marks. */
export function markedShell(launch: ShellLaunch): MarkedShell | undefined {
  if (launch.command !== null) return undefined;
  const name = basename(launch.file);
  return name === 'bash' || name === 'zsh' || name === 'fish' ? name : undefined;
}

/**
 * Writes the session's startup files and returns the launch that reads them, or undefined when
 * the launch is not an interactive bash, zsh or fish. Throws when the files cannot be written.
 */
export function createShellIntegration(
  sessionId: string,
  launch: ShellLaunch,
): ShellIntegration | undefined {
  const shell = markedShell(launch);
  // bash in POSIX mode reads $ENV, never --rcfile: leave such a shell as it is.
  if (shell === undefined || (shell === 'bash' && launch.env.POSIXLY_CORRECT !== undefined)) {
    return undefined;
  }
  const nonce = randomBytes(6).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), `agent-tty-shell-${sessionId}-`));
  markPrivateDir(dir);
  let removed = false;
  const remove = () => {
    if (removed) return;
    try {
      rmSync(dir, { recursive: true, force: true });
      removed = true;
    } catch {
      // Tried again at close; nothing of the session depends on it after start-up.
    }
  };
  try {
    return { nonce, launch: inject(shell, dir, nonce, withClientPath(launch)), remove };
  } catch (err) {
    remove();
    throw err;
  }
}

function inject(shell: MarkedShell, dir: string, nonce: string, launch: ShellLaunch): ShellLaunch {
  switch (shell) {
    case 'bash': {
      const rc = join(dir, 'bashrc');
      writePrivate(rc, bashRc(nonce, launch.login, rc));
      // Not a login shell any more: the file reads the login files itself (see bash-script.ts).
      return { ...launch, args: ['--rcfile', rc] };
    }
    case 'zsh': {
      const original = launch.env.ZDOTDIR;
      const marks = join(dir, ZSH_MARKS);
      writePrivate(marks, zshMarks(nonce, marks));
      for (const name of ZSH_FILES) {
        writePrivate(join(dir, name), zshFile(name, { dir, original, login: launch.login }));
      }
      return { ...launch, env: { ...launch.env, ZDOTDIR: dir } };
    }
    case 'fish': {
      const init = join(dir, 'init.fish');
      writePrivate(init, fishInit(nonce, init));
      return { ...launch, args: [...launch.args, '--init-command', `source ${quoteFish(init)}`] };
    }
    default:
      return shell satisfies never;
  }
}

/**
 * The launch with the session's PATH in CLIENT_PATH_VARIABLE, for the startup files to put first
 * again once the user's files have run (client-path.ts); unchanged when there is no PATH.
 */
function withClientPath(launch: ShellLaunch): ShellLaunch {
  const path = launch.env.PATH;
  if (!path) return launch;
  return { ...launch, env: { ...launch.env, [CLIENT_PATH_VARIABLE]: path } };
}

/** A new 0600 file that never follows or replaces anything already at its path. */
function writePrivate(path: string, text: string): void {
  const fd = createPrivateFile(path);
  try {
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
