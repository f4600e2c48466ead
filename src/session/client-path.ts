/**
 * The client's PATH wins over the shell's startup files. A login profile rewrites PATH (Debian's
 * /etc/profile, macOS's path_helper), which would lose the client's virtualenv, nvm version or
 * newer Node; the session's PATH is therefore passed in CLIENT_PATH_VARIABLE, and once the
 * startup files have run, a line of shell code puts its entries first and keeps the entries the
 * files added after them, each once, then removes the variable. Commands get that line before
 * the command (POSIX shells) or as an --init-command (fish); interactive shells get it at the end
 * of their command-mark startup files (shell-integration.ts). Pure.
 * @see spec/tools.md (terminal_start, PATH)
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${…} here is shell syntax.
import { basename } from 'node:path';

/**
 * The variable that carries the session's PATH to the point where the startup files are done
 * (named literally in the shell code below).
 */
export const CLIENT_PATH_VARIABLE = 'AGENT_TTY_CLIENT_PATH';

/** How a shell is given the PATH order: POSIX code, fish code, or not at all. */
export type PathDialect = 'posix' | 'fish';

const POSIX_SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ksh93', 'mksh', 'ash', 'yash']);

/** The dialect `shell` (a path or a name) speaks, or undefined for shells left as they are. */
export function pathDialect(shell: string): PathDialect | undefined {
  const name = basename(shell);
  if (name === 'fish') return 'fish';
  return POSIX_SHELLS.has(name) ? 'posix' : undefined;
}

/**
 * One line of POSIX shell (sh, bash, zsh, ksh): PATH becomes the client's entries, then those of
 * the current PATH not among them, each entry once (an empty one, the working directory,
 * included); the variable is removed. Nothing happens to PATH when the variable is not set.
 */
export const POSIX_PATH_ORDER = [
  'if [ -n "${AGENT_TTY_CLIENT_PATH+x}" ]; then',
  '__agent_tty_pr="${AGENT_TTY_CLIENT_PATH:+$AGENT_TTY_CLIENT_PATH:}${PATH:+$PATH:}"; __agent_tty_po=;',
  'while [ -n "$__agent_tty_pr" ]; do',
  '__agent_tty_pe=${__agent_tty_pr%%:*}; __agent_tty_pr=${__agent_tty_pr#*:};',
  'case ":$__agent_tty_po" in *":$__agent_tty_pe:"*) ;; *) __agent_tty_po=$__agent_tty_po$__agent_tty_pe: ;; esac;',
  'done;',
  'PATH=${__agent_tty_po%:}; export PATH; unset __agent_tty_pr __agent_tty_po __agent_tty_pe;',
  'unset AGENT_TTY_CLIENT_PATH;',
  'fi',
].join(' ');

/** The same for fish, whose PATH is a list. */
export const FISH_PATH_ORDER = [
  'if set -q AGENT_TTY_CLIENT_PATH;',
  'set -l __agent_tty_po;',
  'for __agent_tty_pe in (string split -- : $AGENT_TTY_CLIENT_PATH) $PATH;',
  'contains -- $__agent_tty_pe $__agent_tty_po; or set -a __agent_tty_po $__agent_tty_pe;',
  'end;',
  'set -gx PATH $__agent_tty_po;',
  'set -e AGENT_TTY_CLIENT_PATH;',
  'end',
].join(' ');

/**
 * The arguments that run `command` in a login `shell` with the PATH order applied after its
 * startup files, or undefined when `shell` is not one that gets it. POSIX shells get the line
 * before the command (so the shell counts the command's lines from 2); fish gets it as an
 * --init-command, which fish runs after its configuration and before `-c`.
 */
export function loginCommandArgs(shell: string, command: string): string[] | undefined {
  const dialect = pathDialect(shell);
  if (dialect === 'fish') return ['-l', '--init-command', FISH_PATH_ORDER, '-c', command];
  if (dialect === 'posix') return ['-l', '-c', `${POSIX_PATH_ORDER}\n${command}`];
  return undefined;
}
