/**
 * The text of the startup files shell-integration.ts writes for a session: each reads the files
 * the shell would have read (as the shell itself would, at top level), then adds hooks that print
 * OSC 133 marks tagged `aid=<nonce>`: D (the last command's exit code) and A before each prompt,
 * C once a command line has been read. Prompts (PS1, PROMPT, fish_prompt) are left as they are.
 * Pure.
 * @see spec/tools.md (Command marks)
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${…} here is shell syntax.

const ST = '\\e\\\\';

/** `mark` (A, C, or D with `%s` for the code) as printf or bash prompt escapes. */
const osc = (mark: string, nonce: string) => `\\e]133;${mark};aid=${nonce}${ST}`;

/** A string as one POSIX (and zsh) shell word. */
export function quotePosix(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** A string as one fish word (inside fish's single quotes only \\ and \' are escapes). */
export function quoteFish(value: string): string {
  return `'${value.replace(/[\\']/g, '\\$&')}'`;
}

const HEADER = (how: string) =>
  `# agent-tty: command marks (OSC 133) for one session; removed when it closes.\n# ${how}\n`;

/**
 * bash's --rcfile. bash reads it instead of ~/.bashrc; a login shell cannot take --rcfile, so
 * it starts as an interactive non-login shell and this file reads the login files in bash's
 * order. Needs bash 4.4 (PS0); from 5.1 PROMPT_COMMAND is an array and ours goes first, so it
 * sees the command's status, which it then hands on (unless `set -e` is on: a non-zero status
 * there would end the shell).
 */
export function bashRc(nonce: string, login: boolean): string {
  const startup = login
    ? [
        'if [ -f /etc/profile ]; then . /etc/profile; fi',
        'if [ -f ~/.bash_profile ]; then . ~/.bash_profile',
        'elif [ -f ~/.bash_login ]; then . ~/.bash_login',
        'elif [ -f ~/.profile ]; then . ~/.profile',
        'fi',
      ]
    : ['if [ -f ~/.bashrc ]; then . ~/.bashrc; fi'];
  return [
    HEADER('bash reads it with --rcfile, in place of the files below, which it reads first.'),
    ...startup,
    'if (( BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4) )); then',
    '  __agent_tty_precmd() {',
    '    local s=$?',
    `    builtin printf '${osc('D;%s', nonce)}${osc('A', nonce)}' "$s"`,
    '    case $- in *e*) return 0 ;; esac',
    '    return "$s"',
    '  }',
    '  if (( BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1) )); then',
    '    PROMPT_COMMAND=(__agent_tty_precmd ${PROMPT_COMMAND[@]+"${PROMPT_COMMAND[@]}"})',
    '  else',
    '    PROMPT_COMMAND="__agent_tty_precmd${PROMPT_COMMAND:+;$PROMPT_COMMAND}"',
    '    export -n PROMPT_COMMAND',
    '  fi',
    `  PS0='${osc('C', nonce)}'"\${PS0-}"`,
    'fi',
    '',
  ].join('\n');
}

/** The startup files zsh reads from ZDOTDIR, in its order. */
export const ZSH_FILES = ['.zshenv', '.zprofile', '.zshrc', '.zlogin'] as const;
export type ZshFile = (typeof ZSH_FILES)[number];

export interface ZshOptions {
  readonly nonce: string;
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
 * reads (.zlogin for a login shell, else .zshrc) leaves the user's ZDOTDIR in place. .zshrc adds
 * the hooks after the user's .zshrc.
 */
export function zshFile(name: ZshFile, options: ZshOptions): string {
  const last = options.login ? '.zlogin' : '.zshrc';
  const lines = [HEADER('zsh reads it through ZDOTDIR, with the file of the same name below.')];
  if (name === '.zshenv') {
    lines.push(
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
  if (name === '.zshrc') lines.push(...zshHooks(options.nonce));
  if (name === last) {
    lines.push('unset __agent_tty_zd_set __agent_tty_zd __agent_tty_zd_x', '');
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

/** zsh keeps $? for each hook; ours goes first among precmd hooks and last among preexec. */
function zshHooks(nonce: string): string[] {
  return [
    '__agent_tty_precmd() {',
    `  builtin print -rn -- $'\\e]133;D;'"$?"$';aid=${nonce}${ST}${osc('A', nonce)}'`,
    '}',
    `__agent_tty_preexec() { builtin print -rn -- $'${osc('C', nonce)}'; }`,
    'typeset -ga precmd_functions preexec_functions',
    'precmd_functions=(__agent_tty_precmd "${precmd_functions[@]}")',
    'preexec_functions=("${preexec_functions[@]}" __agent_tty_preexec)',
  ];
}

/** fish's --init-command file (read after config.fish): handlers of fish's own events. */
export function fishInit(nonce: string): string {
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
    `    builtin printf '${mark('D;%s')}' $status`,
    'end',
    '',
  ].join('\n');
}
