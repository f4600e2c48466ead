/**
 * The --rcfile a session gives an interactive bash: it defines the hooks (the nonce is in their
 * text only), empties itself, reads the files bash would have read, puts the session's PATH
 * entries first again (client-path.ts), then arranges for the hooks
 * to be put in place at the first prompt, before anything of the user's runs there. The hook
 * that prints D and A keeps an entry of PROMPT_COMMAND to itself (bash 5.1 runs each entry with
 * the command's status, whatever the entries before it did) or goes first in it (older bash); it
 * checks that this still holds at each prompt and reports no exit code, with the reason, when it
 * does not. With a DEBUG trap set at start-up its entry runs in a subshell, which the trap does
 * not see, so hooks that count on the trap (bash-preexec) see no command of ours. PS0 prints C.
 * Pure.
 * @see spec/tools.md (Command marks)
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${…} here is shell syntax.
import { POSIX_PATH_ORDER } from './client-path.js';
import { HEADER, osc, quotePosix } from './shell-scripts.js';

/** bash 4.4 has PS0; from 5.1 PROMPT_COMMAND may be an array, one command per entry. */
const HAS_PS0 = '(( BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4) ))';
const HAS_ENTRIES =
  '(( BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1) ))';

/** What PS0 holds of ours: the C mark, from an array (bash never exports one). */
const PS0_PART = '${__agent_tty[1]}';

/** The files bash reads in place of the rcfile: ~/.bashrc, or the login files in bash's order. */
function startupFiles(login: boolean): string[] {
  return login
    ? [
        'if [ -f /etc/profile ]; then . /etc/profile; fi',
        'if [ -f ~/.bash_profile ]; then . ~/.bash_profile',
        'elif [ -f ~/.bash_login ]; then . ~/.bash_login',
        'elif [ -f ~/.profile ]; then . ~/.profile',
        'fi',
      ]
    : ['if [ -f ~/.bashrc ]; then . ~/.bashrc; fi'];
}

/**
 * The hook. A call from another hook (FUNCNAME deeper than 1) while ours is in place is left to
 * bash's own call. D carries the status only when this call is bash's own and first in its
 * entry; else `why=order`. Outside a subshell it then keeps PS0 and its entry in place. Under
 * `set -e` it hands on 0: a failing hook would end the shell.
 */
function precmd(nonce: string): string[] {
  return [
    '  __agent_tty_precmd() {',
    '    local s=$? - own=0 first=0',
    '    set +a +x',
    '    (( ${#FUNCNAME[@]} == 1 )) && own=1',
    '    __agent_tty_first && first=1',
    '    if (( own || ! first )); then',
    '      if (( own && first )); then',
    `        builtin printf '${osc('D;%s', nonce)}' "$s"`,
    '      else',
    `        builtin printf '${osc('D', nonce, 'why=order')}'`,
    '      fi',
    `      builtin printf '${osc('A', nonce)}'`,
    '      if (( ! BASH_SUBSHELL )); then',
    '        (( first )) || __agent_tty_place',
    '        __agent_tty_ps0',
    '      fi',
    '    fi',
    '    case $- in *e*) return 0 ;; esac',
    '    return "$s"',
    '  }',
  ];
}

/**
 * Whether the hook is named once in PROMPT_COMMAND, first in its entry (`(…)`: its subshell
 * form). No `((…))` here: a false one fails, and set -e would end the shell.
 */
const FIRST = [
  '  __agent_tty_first() {',
  "    local e n=0 nl=$'\\n'",
  '    for e in ${PROMPT_COMMAND[@]+"${PROMPT_COMMAND[@]}"}; do',
  '      e=${e#"("}',
  '      case $e in',
  '        *__agent_tty_precmd*__agent_tty_precmd*) return 1 ;;',
  '        __agent_tty_precmd | "__agent_tty_precmd"[";)$nl"]*) n=$((n + 1)) ;;',
  '        *__agent_tty_precmd*) return 1 ;;',
  '      esac',
  '    done',
  '    [[ $n == 1 ]]',
  '  }',
];

/**
 * Puts the hook in place, taking it out of every other entry: an entry of its own after the first
 * (hooks that assign PROMPT_COMMAND as a string replace the first entry only; its form is in
 * __agent_tty[0]), or first in the string before bash 5.1, where PROMPT_COMMAND is no longer
 * exported.
 */
const PLACE = [
  '  __agent_tty_place() {',
  "    local e i nl=$'\\n'",
  '    local -a kept=()',
  '    for i in ${PROMPT_COMMAND[@]+"${!PROMPT_COMMAND[@]}"}; do',
  '      e=${PROMPT_COMMAND[i]}',
  '      [[ $e == __agent_tty_precmd || $e == "(__agent_tty_precmd)" ]] && continue',
  '      e=${e//"(__agent_tty_precmd)"/__agent_tty_precmd}',
  '      e=${e//"__agent_tty_precmd;"/}',
  '      e=${e//"__agent_tty_precmd$nl"/}',
  '      kept+=("${e//__agent_tty_precmd/:}")',
  '    done',
  `    if ${HAS_ENTRIES}; then`,
  '      e=__agent_tty_precmd',
  '      [[ -n ${__agent_tty[0]} ]] && e="($e)"',
  '      if (( ${#kept[@]} )); then',
  '        PROMPT_COMMAND=("${kept[0]}" "$e" "${kept[@]:1}")',
  '      else',
  '        PROMPT_COMMAND=([1]="$e")',
  '      fi',
  '    else',
  '      PROMPT_COMMAND="__agent_tty_precmd${kept[0]:+;${kept[0]}}"',
  '      export -n PROMPT_COMMAND',
  '    fi',
  '  }',
];

/** Puts our part of PS0 back after a hook replaced PS0; takes it out while promptvars is off. */
const PS0 = [
  '  __agent_tty_ps0() {',
  `    local c='${PS0_PART}'`,
  '    if shopt -q promptvars; then',
  '      case ${PS0-} in *"$c"*) ;; *) PS0=${PS0-}$c ;; esac',
  '    else',
  '      case ${PS0-} in *"$c"*) PS0=${PS0//"$c"/} ;; esac',
  '    fi',
  '  }',
];

/**
 * Run once, first at the first prompt (its name leads PROMPT_COMMAND until then): takes itself
 * out and puts the hook in place, so that what the user's hooks do at that prompt (bash-preexec
 * installs itself there) finds PROMPT_COMMAND as they left it, and the hook does not run after
 * them there.
 */
function start(nonce: string): string[] {
  return [
    '  __agent_tty_start() {',
    '    local -',
    '    set +a +x',
    '    PROMPT_COMMAND=${PROMPT_COMMAND#__agent_tty_start}',
    '    PROMPT_COMMAND=${PROMPT_COMMAND#;}',
    '    __agent_tty_place',
    '    __agent_tty_ps0',
    `    builtin printf '${osc('A', nonce)}'`,
    '    unset -f __agent_tty_start',
    '  }',
  ];
}

/**
 * bash's --rcfile. bash reads the whole file before running it, so it can empty itself at once. A
 * login shell cannot take --rcfile, so it starts as an interactive non-login shell and this file
 * reads the login files in bash's order. Needs bash 4.4 (PS0); a readonly PROMPT_COMMAND gets no
 * hooks.
 */
export function bashRc(nonce: string, login: boolean, path: string): string {
  const file = quotePosix(path);
  return [
    HEADER('bash reads it with --rcfile, in place of the files below, which it reads first.'),
    `if ${HAS_PS0}; then`,
    // Defined with allexport and xtrace off (local - restores them): nothing of it is exported
    // or traced.
    '__agent_tty_define() {',
    '  local -',
    '  set +a +x',
    // All state in one array, which bash never exports: [0] the hook's form, [1] the C mark.
    "  __agent_tty=('' '')",
    `  builtin printf -v '__agent_tty[1]' '${osc('C', nonce)}'`,
    ...precmd(nonce),
    ...FIRST,
    ...PLACE,
    ...PS0,
    ...start(nonce),
    '}',
    '__agent_tty_define',
    'unset -f __agent_tty_define',
    'fi',
    `{ : >| ${file}; } 2>/dev/null`,
    ...startupFiles(login),
    POSIX_PATH_ORDER,
    'if declare -F __agent_tty_start >/dev/null &&',
    '  { [[ -z ${PROMPT_COMMAND[*]+set} ]] || [[ ${PROMPT_COMMAND@a} != *r* ]]; }; then',
    // A DEBUG trap set by the startup files makes the hook run in a subshell. Checked here, at
    // top level (a function does not see the trap), through the emptied file: no fork.
    `  { trap -p DEBUG >| ${file}; } 2>/dev/null`,
    `  [[ -s ${file} ]] && __agent_tty[0]=subshell`,
    `  { : >| ${file}; } 2>/dev/null`,
    '  PROMPT_COMMAND="__agent_tty_start${PROMPT_COMMAND:+;$PROMPT_COMMAND}"',
    `  ${HAS_ENTRIES} || export -n PROMPT_COMMAND`,
    'fi',
    '',
  ].join('\n');
}
