/**
 * Logger that writes to stderr only: stdout carries JSON-RPC and nothing else. Messages never
 * include environment values or program output.
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export const LOG_LEVELS = Object.keys(RANK) as LogLevel[];

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => {
    process.stderr.write(line);
  },
): Logger {
  const emit = (at: Exclude<LogLevel, 'silent'>, message: string) => {
    if (RANK[at] < RANK[level]) return;
    write(`agent-tty ${at}: ${message}\n`);
  };
  return {
    debug: (m) => emit('debug', m),
    info: (m) => emit('info', m),
    warn: (m) => emit('warn', m),
    error: (m) => emit('error', m),
  };
}

export const silentLogger: Logger = createLogger('silent');
