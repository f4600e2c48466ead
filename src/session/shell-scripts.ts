/**
 * The text of the startup files shell-integration.ts writes for a session, but bash's
 * (bash-script.ts): zsh's and fish's, and the pieces all share. Each reads the files the shell
 * would have read (as the shell itself would, at top level), puts the session's PATH entries
 * first again after the last of them (client-path.ts), and adds hooks that print OSC 133
 * marks tagged `aid=<nonce>`: D (the command's exit code) and A before each prompt, C once a
 * command line has been read. The nonce is in the hooks' text only, and the file that holds it
 * empties itself once read. Prompts (PS1, PROMPT, fish_prompt) are left as they are. Pure.
 * @see spec/tools.md (Command marks)
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${…} here is shell syntax.
import { FISH_PATH_ORDER, POSIX_PATH_ORDER } from './client-path.js';

const ST = '\\e\\\\';

/**
 * `mark` (A, C, or D with `%s` for the code) as a printf format, with `extra` parameters
 * (`why=order`) after the nonce.
 */
export const osc = (mark: string, nonce: string, extra?: string) =>
  `\\e]133;${mark};aid=${nonce}${extra ? `;${extra}` : ''}${ST}`;

/** A string as one POSIX (and zsh) shell word. */
export function quotePosix(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** A string as one fish word (inside fish's single quotes only \\ and \' are escapes). */
export function quoteFish(value: string): string {
  return `'${value.replace(/[\\']/g, '\\$&')}'`;
}

export const HEADER = (how: string) =>
  `# agent-tty: command marks (OSC 133) for one session; removed once the shell has started.\n# ${how}\n`;

/** The startup files zsh reads from ZDOTDIR, in its order. */
export const ZSH_FILES = ['.zshenv', '.zprofile', '.zshrc', '.zlogin'] as const;
export type ZshFile = (typeof ZSH_FILES)[number];
/** The file with zsh's hooks (and the nonce), which .zshenv reads first. */
export const ZSH_MARKS = 'marks.zsh';

export interface ZshOptions {
  /** Our directory, which ZDOTDIR names until the last startup file. */
  readonly dir: string;
  /** ZDOTDIR as the session's environment had it. */
  readonly original: string | undefined;
  readonly login: boolean;
}

/**
 * One of zsh's startup files in our ZDOTDIR. Each puts the user's ZDOTDIR back, reads the
 * user's file of the same name from it, notes what ZDOTDIR has become (their .zshenv may move
 * it), and points ZDOTDIR at our directory again so zsh reads our next file; the last file zsh
 * reads (.zlogin for a login shell, else .zshrc) leaves the user's ZDOTDIR in place. .zshenv
 * first reads the hooks (marks.zsh); .zshrc puts them in place after the user's .zshrc.
 */
export function zshFile(name: ZshFile, options: ZshOptions): string {
  const last = options.login ? '.zlogin' : '.zshrc';
  const lines = [HEADER('zsh reads it through ZDOTDIR, with the file of the same name below.')];
  if (name === '.zshenv') {
    lines.push(
      `builtin source ${quotePosix(`${options.dir}/${ZSH_MARKS}`)}`,
      options.original === undefined
        ? '__agent_tty_zd_set=0 __agent_tty_zd= __agent_tty_zd_x=0'
        : `__agent_tty_zd_set=1 __agent_tty_zd=${quotePosix(options.original)} __agent_tty_zd_x=1`,
    );
  }
  lines.push(
    'if (( __agent_tty_zd_set )); then',
    '  ZDOTDIR=$__agent_tty_zd',
    '  if (( __agent_tty_zd_x )); then export ZDOTDIR; else typeset +x ZDOTDIR; fi',
    'else',
    '  unset ZDOTDIR',
    'fi',
    `if [[ -f \${ZDOTDIR:-$HOME}/${name} ]]; then builtin source \${ZDOTDIR:-$HOME}/${name}; fi`,
  );
  if (name === '.zshrc') lines.push(...ZSH_INSTALL);
  if (name === last) {
    lines.push('unset __agent_tty_zd_set __agent_tty_zd __agent_tty_zd_x', POSIX_PATH_ORDER, '');
    return lines.join('\n');
  }
  lines.push(
    'if (( ${+ZDOTDIR} )); then',
    '  __agent_tty_zd_set=1 __agent_tty_zd=$ZDOTDIR',
    '  if [[ ${(t)ZDOTDIR} == *export* ]]; then __agent_tty_zd_x=1; else __agent_tty_zd_x=0; fi',
    'else',
    '  __agent_tty_zd_set=0',
    'fi',
    // Without RCS zsh reads no further startup file: the user's ZDOTDIR stays.
    'if [[ -o rcs ]]; then',
    `  ZDOTDIR=${quotePosix(options.dir)}`,
    'else',
    '  unset __agent_tty_zd_set __agent_tty_zd __agent_tty_zd_x',
    'fi',
    '',
  );
  return lines.join('\n');
}

/** After the user's .zshrc: ours first among precmd hooks and last among preexec hooks. */
const ZSH_INSTALL = [
  'if typeset -f __agent_tty_precmd >/dev/null; then',
  '  typeset -ga precmd_functions preexec_functions',
  '  precmd_functions=(__agent_tty_precmd "${precmd_functions[@]}")',
  '  preexec_functions=("${preexec_functions[@]}" __agent_tty_preexec)',
  'fi',
];

/**
 * marks.zsh: the hooks. zsh gives each hook the command's status, so D carries it unless the
 * hook was called from another hook (funcstack deeper than 1) with ours gone from
 * precmd_functions (`why=order`); a call from another hook while ours is in place is left to
 * zsh's own. Each hook puts the other back when a plugin took it out. zsh reads a file as it runs
 * it, so this one empties itself on its last line.
 */
export function zshMarks(nonce: string, path: string): string {
  return [
    HEADER('zsh reads it first, from .zshenv; it empties itself once read.'),
    'typeset -gi __agent_tty_ran=0',
    '__agent_tty_precmd() {',
    '  local s=$?',
    '  emulate -L zsh',
    '  setopt no_xtrace',
    '  (( ${#funcstack} > 1 && ${precmd_functions[(Ie)__agent_tty_precmd]} )) && return 0',
    '  if (( __agent_tty_ran )); then',
    '    __agent_tty_ran=0',
    '    if (( ${#funcstack} == 1 )); then',
    `      builtin printf '${osc('D;%s', nonce)}' $s`,
    '    else',
    `      builtin printf '${osc('D', nonce, 'why=order')}'`,
    '    fi',
    '  fi',
    `  builtin printf '${osc('A', nonce)}'`,
    '  __agent_tty_hooks',
    '}',
    '__agent_tty_preexec() {',
    '  emulate -L zsh',
    '  setopt no_xtrace',
    '  __agent_tty_ran=1',
    `  builtin printf '${osc('C', nonce)}'`,
    '  __agent_tty_hooks',
    '}',
    '__agent_tty_hooks() {',
    '  (( ${precmd_functions[(Ie)__agent_tty_precmd]} )) ||',
    '    precmd_functions=(__agent_tty_precmd "${precmd_functions[@]}")',
    '  (( ${preexec_functions[(Ie)__agent_tty_preexec]} )) ||',
    '    preexec_functions=("${preexec_functions[@]}" __agent_tty_preexec)',
    '  return 0',
    '}',
    `{ : >| ${quotePosix(path)}; } 2>/dev/null`,
    '',
  ].join('\n');
}

/**
 * fish's --init-command file (read whole, after config.fish): handlers of fish's own events,
 * which fish gives the command's status each. It empties itself once read.
 */
export function fishInit(nonce: string, path: string): string {
  // In fish's single quotes \\ is one backslash: printf then gets \e\\, ESC and a backslash.
  const mark = (m: string) => osc(m, nonce).replace(ST, '\\e\\\\\\\\');
  return [
    HEADER('fish sources it with --init-command, after its own configuration.'),
    'function __agent_tty_prompt --on-event fish_prompt',
    `    builtin printf '${mark('A')}'`,
    'end',
    'function __agent_tty_preexec --on-event fish_preexec',
    `    builtin printf '${mark('C')}'`,
    'end',
    'function __agent_tty_postexec --on-event fish_postexec',
    '    set -l s $status',
    `    builtin printf '${mark('D;%s')}' $s`,
    'end',
    FISH_PATH_ORDER,
    `true >${quoteFish(path)} 2>/dev/null`,
    '',
  ].join('\n');
}
