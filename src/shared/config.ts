/**
 * Defaults and limits, read once from command-line flags and AGENT_TTY_* environment variables,
 * then frozen. Flags win over the environment. OPTIONS is also what `agent-tty --help` lists
 * (formatOptionsHelp, below it): a flag, its help and its default are written once, here.
 */
import { resolve } from 'node:path';
import { LOG_LEVELS, type LogLevel } from './log.js';
import { byteSize, configError, integer, logLevel, onOff } from './option-values.js';

export interface Config {
  /** Sessions retained at once, running or exited. */
  readonly maxSessions: number;
  /** Size used by terminal_start when cols/rows are omitted. */
  readonly defaultCols: number;
  readonly defaultRows: number;
  /** The most lines of history the scrollback view (scrollbackLines) shows. */
  readonly scrollbackLines: number;
  /** Bytes each session's transcript of history lines may hold (text plus index), on disk. */
  readonly transcriptBytes: number;
  /** Where sessions' transcript files go, absolute; '' = the system's temporary directory. */
  readonly transcriptDir: string;
  /** Largest tool result, as bytes of serialized JSON. */
  readonly maxResultBytes: number;
  /** Default quiet interval and deadline of an observation. */
  readonly quietMs: number;
  readonly settleTimeoutMs: number;
  /** Quiet that suffices once the program is seen waiting for input (Linux). */
  readonly inputGraceMs: number;
  /** Close escalation: hangup, then terminate after hangupGraceMs, then kill after termGraceMs. */
  readonly hangupGraceMs: number;
  readonly termGraceMs: number;
  readonly logLevel: LogLevel;
  /**
   * Record every session as an asciicast file in this directory, absolute (a relative one is
   * resolved against the server's working directory at start-up); '' = only when asked.
   */
  readonly recordDir: string;
  /** Close a session after this long without a tool call naming it (0 = never). */
  readonly idleTimeoutMs: number;
  /** Give interactive bash, zsh and fish shells command marks (spec/tools.md, Command marks). */
  readonly commandMarks: boolean;
  /** Let people watch and type into sessions with `agent-tty attach` (spec/attach.md). */
  readonly attach: boolean;
}

export const DEFAULT_CONFIG: Config = Object.freeze({
  maxSessions: 8,
  defaultCols: 120,
  defaultRows: 40,
  scrollbackLines: 2000,
  transcriptBytes: 512 * 1024 * 1024,
  transcriptDir: '',
  maxResultBytes: 8 * 1024 * 1024,
  quietMs: 250,
  settleTimeoutMs: 1000,
  inputGraceMs: 20,
  hangupGraceMs: 500,
  termGraceMs: 100,
  logLevel: 'warn',
  recordDir: '',
  idleTimeoutMs: 0,
  commandMarks: true,
  attach: true,
});

/**
 * `serve --http`'s defaults: the same, except that sessions no tool call has named for a day
 * close. Over stdio a session ends with its client; over HTTP it outlives every client, so one
 * nobody comes back for would otherwise run until the server stops.
 */
export const HTTP_DEFAULT_CONFIG: Config = Object.freeze({
  ...DEFAULT_CONFIG,
  idleTimeoutMs: 24 * 3600 * 1000,
});

/** Hard limits of the tool surface; not configurable. */
export const LIMITS = Object.freeze({
  minCols: 2,
  maxCols: 500,
  minRows: 1,
  maxRows: 200,
  maxScrollbackRequest: 2000,
  /** Text one page of history (historySince) holds at most, past its first line. */
  maxHistoryPageBytes: 1024 * 1024,
  maxActions: 256,
  maxPayloadBytes: 1024 * 1024,
  /** Input a session holds for a program that has not read it yet; a batch beyond it is refused. */
  maxPendingInputBytes: 1024 * 1024,
  /** Probe replies a session holds for a program that has not read them; more are dropped. */
  maxPendingReplyBytes: 64 * 1024,
  maxTimingMs: 60_000,
  /** Longest expect-style wait or one-shot run. */
  maxWaitMs: 3_600_000,
  /** Longest one evaluation of an agent's pattern may run (in a worker) before PATTERN_TIMEOUT. */
  patternBudgetMs: 1000,
});

interface Option {
  readonly flag: string;
  readonly env: string;
  readonly key: keyof Config;
  readonly help: string;
  readonly parse: (raw: string) => Config[keyof Config];
  /** A flag that takes no value: giving it means this value. */
  readonly flagValue?: string;
}

export const OPTIONS: readonly Option[] = [
  {
    flag: '--max-sessions',
    env: 'AGENT_TTY_MAX_SESSIONS',
    key: 'maxSessions',
    help: `sessions retained at once, running or exited (default ${DEFAULT_CONFIG.maxSessions})`,
    parse: integer(1, 64),
  },
  {
    flag: '--cols',
    env: 'AGENT_TTY_COLS',
    key: 'defaultCols',
    help: `columns when terminal_start omits cols (default ${DEFAULT_CONFIG.defaultCols})`,
    parse: integer(2, 500),
  },
  {
    flag: '--rows',
    env: 'AGENT_TTY_ROWS',
    key: 'defaultRows',
    help: `rows when terminal_start omits rows (default ${DEFAULT_CONFIG.defaultRows})`,
    parse: integer(1, 200),
  },
  {
    flag: '--scrollback',
    env: 'AGENT_TTY_SCROLLBACK',
    key: 'scrollbackLines',
    help: `the most lines of history scrollbackLines reads (default ${DEFAULT_CONFIG.scrollbackLines}), from the transcript that historySince and find read (--transcript-bytes)`,
    parse: integer(0, 100_000),
  },
  {
    flag: '--transcript-bytes',
    env: 'AGENT_TTY_TRANSCRIPT_BYTES',
    key: 'transcriptBytes',
    help: `bytes of history lines each session keeps on disk for historySince and find, oldest dropped first; K, M or G suffix (default ${DEFAULT_CONFIG.transcriptBytes / 1024 ** 2}M)`,
    parse: byteSize(0, 64 * 1024 ** 3),
  },
  {
    flag: '--transcript-dir',
    env: 'AGENT_TTY_TRANSCRIPT_DIR',
    key: 'transcriptDir',
    help: "directory for the sessions' transcript files, each session's in a private directory removed when it closes (default: $TMPDIR or /tmp; /var/tmp where /tmp is in memory)",
    parse: (raw) => (raw === '' ? '' : resolve(raw)),
  },
  {
    flag: '--record-dir',
    env: 'AGENT_TTY_RECORD_DIR',
    key: 'recordDir',
    help: 'record every session as an asciicast file in this directory (default: only sessions started with record:true, in ~/.agent-tty/recordings)',
    // Resolved now, so the paths sessions report are absolute and mean one place.
    parse: (raw) => (raw === '' ? '' : resolve(raw)),
  },
  {
    flag: '--idle-timeout',
    env: 'AGENT_TTY_IDLE_TIMEOUT',
    key: 'idleTimeoutMs',
    help: `close a session after this many ms without a tool call for it (default ${DEFAULT_CONFIG.idleTimeoutMs}: never; serve --http: ${HTTP_DEFAULT_CONFIG.idleTimeoutMs}, a day)`,
    parse: integer(0, 30 * 24 * 3600 * 1000),
  },
  {
    flag: '--no-command-marks',
    env: 'AGENT_TTY_COMMAND_MARKS',
    key: 'commandMarks',
    help: 'start interactive bash, zsh and fish without command marks (env: 0 = off, 1 = on)',
    parse: onOff,
    flagValue: '0',
  },
  {
    flag: '--no-attach',
    env: 'AGENT_TTY_ATTACH',
    key: 'attach',
    help: 'no attach socket: people cannot watch sessions with agent-tty attach (env: 0 = off, 1 = on; the socket directory is AGENT_TTY_SOCKET_DIR, default $TMPDIR/agent-tty-UID)',
    parse: onOff,
    flagValue: '0',
  },
  {
    flag: '--log-level',
    env: 'AGENT_TTY_LOG_LEVEL',
    key: 'logLevel',
    help: `stderr log level: ${LOG_LEVELS.join(', ')} (default ${DEFAULT_CONFIG.logLevel})`,
    parse: logLevel,
  },
];

/** Longest line of `agent-tty --help`: what a 100-column terminal shows without wrapping. */
const HELP_WIDTH = 100;
/** Where an option's help starts in `agent-tty --help`. */
const HELP_COLUMN = 26;

/**
 * The options part of `agent-tty --help`, rendered from OPTIONS: each flag (with `<value>` when it
 * takes one) and its help in one column, then its environment variable. `first` are lines to put
 * before the flags, as `[name, help]` (the command line's own --help and --version).
 */
export function formatOptionsHelp(first: readonly (readonly [string, string])[] = []): string {
  const entries = [
    ...first.map(([name, help]) => ({ name, help, env: undefined })),
    ...OPTIONS.map((o) => ({
      name: o.flagValue === undefined ? `${o.flag} <value>` : o.flag,
      help: o.help,
      env: o.env,
    })),
  ];
  const indent = ' '.repeat(HELP_COLUMN);
  return entries
    .map(({ name, help, env }) => {
      const [head = '', ...rest] = wrapWords(help, indent, HELP_WIDTH);
      // A name too long for its column puts the help on the next line.
      const top =
        name.length < HELP_COLUMN - 2
          ? `  ${name.padEnd(HELP_COLUMN - 2)}${head.slice(HELP_COLUMN)}`
          : `  ${name}\n${head}`;
      return [top, ...rest, ...(env === undefined ? [] : [`${indent}env ${env}`])].join('\n');
    })
    .join('\n');
}

/** `text` in lines of at most `width` columns, each after `indent` (one long word stays whole). */
function wrapWords(text: string, indent: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && indent.length + line.length + 1 + word.length > width) {
      lines.push(`${indent}${line}`);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(`${indent}${line}`);
  return lines;
}

/** Builds the configuration from flags (`--name value` or `--name=value`) and environment. */
export function loadConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  defaults: Config = DEFAULT_CONFIG,
): Config {
  const values: Record<string, unknown> = { ...defaults };
  for (const option of OPTIONS) {
    const raw = env[option.env];
    if (raw !== undefined && raw !== '') values[option.key] = parseWith(option, raw, option.env);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] = splitFlag(arg);
    const option = OPTIONS.find((o) => o.flag === flag);
    if (!option) throw configError(`unknown option "${arg}"; see agent-tty --help`);
    if (option.flagValue !== undefined && inline !== undefined) {
      throw configError(`${flag} takes no value; to set it from a value use ${option.env}`);
    }
    const raw = option.flagValue ?? inline ?? argv[++i];
    if (raw === undefined) throw configError(`${flag} needs a value`);
    values[option.key] = parseWith(option, raw, flag);
  }
  return Object.freeze(values as unknown as Config);
}

function splitFlag(arg: string): [string, string | undefined] {
  const eq = arg.indexOf('=');
  return eq === -1 ? [arg, undefined] : [arg.slice(0, eq), arg.slice(eq + 1)];
}

function parseWith(option: Option, raw: string, source: string) {
  try {
    return option.parse(raw);
  } catch (err) {
    throw configError(`${source}: ${(err as Error).message}`);
  }
}
