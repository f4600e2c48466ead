/**
 * Turns terminal_start's arguments into what is spawned: the argv (`shell -l -c command`, with the
 * PATH order of client-path.ts before the command, or an interactive shell when there is no
 * command), the working directory and the environment (inherited, minus variables that would
 * confuse a nested terminal, then the caller's overrides, with TERM fixed), and whether shell
 * history stays in the session. A `cwd` of `~` or `~/…` starts in the server's HOME, as a shell
 * would expand it. Pure but for the defaults it is given.
 * @see spec/tools.md (terminal_start, PATH, Shell history)
 */
import { resolve } from 'node:path';
import { TerminalError } from '../shared/errors.js';
import { CLIENT_PATH_VARIABLE, loginCommandArgs } from './client-path.js';

export interface LaunchRequest {
  readonly command?: string | undefined;
  readonly shell?: string | undefined;
  readonly login?: boolean | undefined;
  readonly cwd?: string | undefined;
  readonly env?: Readonly<Record<string, string>> | undefined;
  /** Inherited variables to remove (before `env` applies). */
  readonly unsetEnv?: readonly string[] | undefined;
}

export interface LaunchPlan {
  readonly file: string;
  readonly args: string[];
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** The command as the caller gave it, or null for an interactive shell. */
  readonly command: string | null;
  /** The shell starts as a login shell (`-l`). */
  readonly login: boolean;
  /**
   * Whether the session gives its shells a history file of their own (HISTFILE, set by the
   * session, removed at close); false when the caller names HISTFILE in env or unsetEnv.
   */
  readonly sessionHistory: boolean;
}

export interface LaunchDefaults {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

export const TERM = 'xterm-256color';

/** Inherited variables that describe the server's own terminal, not the new one. */
const NOT_INHERITED = [
  'TMUX',
  'TMUX_PANE',
  'STY',
  'WINDOW',
  'WINDOWID',
  'TERMCAP',
  'COLUMNS',
  'LINES',
  'TERM_PROGRAM',
  'TERM_PROGRAM_VERSION',
  'TERM_SESSION_ID',
  'VSCODE_INJECTION',
  'KITTY_WINDOW_ID',
  'WEZTERM_PANE',
  'ITERM_SESSION_ID',
];

export function planLaunch(request: LaunchRequest, defaults: LaunchDefaults): LaunchPlan {
  const shell = request.shell ?? nonEmpty(defaults.env.SHELL) ?? '/bin/sh';
  const login = request.login ?? true;
  const command = request.command ?? null;
  let args = [...(login ? ['-l'] : []), ...(command !== null ? ['-c', command] : [])];
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(defaults.env)) {
    if (value !== undefined && !NOT_INHERITED.includes(name)) env[name] = value;
  }
  // Shells started by agents keep their history out of the user's own (bash and zsh read
  // HISTFILE; fish's history session "" is kept in memory only), unless the caller names it: a
  // file in env, or unsetEnv for the shell's default file.
  const overrides = request.env ?? {};
  const unset = request.unsetEnv ?? [];
  const names = (name: string) => Object.hasOwn(overrides, name) || unset.includes(name);
  const sessionHistory = !names('HISTFILE');
  if (sessionHistory) delete env.HISTFILE;
  if (!names('fish_history')) env.fish_history = '';
  for (const name of unset) delete env[name];
  for (const [name, value] of Object.entries(overrides)) env[name] = value;
  env.TERM = TERM;
  const cwd = resolve(defaults.cwd, expandHome(request.cwd ?? '.', defaults.env.HOME));
  env.PWD = cwd;
  // The login profile may rewrite PATH: the session's own entries go first again after it.
  delete env[CLIENT_PATH_VARIABLE];
  const ordered =
    login && command !== null && env.PATH ? loginCommandArgs(shell, command) : undefined;
  if (ordered !== undefined && env.PATH) {
    args = ordered;
    env[CLIENT_PATH_VARIABLE] = env.PATH;
  }
  return { file: shell, args, cwd, env, command, login, sessionHistory };
}

/**
 * `~` and `~/…` with the server's HOME in front, as a shell expands them; INVALID_ARGUMENT for
 * `~name` (another user's home, which agent-tty does not look up) or when there is no HOME.
 */
function expandHome(cwd: string, home: string | undefined): string {
  if (!cwd.startsWith('~')) return cwd;
  if (cwd !== '~' && !cwd.startsWith('~/')) {
    throw new TerminalError(
      'INVALID_ARGUMENT',
      `cwd ${JSON.stringify(cwd)}: only "~" and "~/…" are expanded (to the server's HOME); give another user's directory as an absolute path`,
      { cwd },
    );
  }
  if (!home) {
    throw new TerminalError(
      'INVALID_ARGUMENT',
      `cwd ${JSON.stringify(cwd)}: the server has no HOME to expand "~" to; give an absolute path`,
      { cwd },
    );
  }
  return `${home}${cwd.slice(1)}`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
