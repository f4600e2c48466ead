/**
 * The bearer token of the HTTP transport (spec/http.md, Authentication): from AGENT_TTY_TOKEN,
 * from --token-file, or generated (256 random bits) and kept 0600 in the state directory, where
 * later starts find it again so registered clients keep working. Never logged.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, readFileSync, statSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { createPrivateFile, makePrivateDir } from '../shared/private-files.js';

/** Shortest token accepted from the environment or a file: 128 bits as hex. */
export const MIN_TOKEN_LENGTH = 32;
/** Random bytes of a generated token (256 bits), written as 64 hex digits. */
export const TOKEN_BYTES = 32;
export const TOKEN_ENV = 'AGENT_TTY_TOKEN';

export type TokenSource = 'env' | 'file' | 'generated' | 'stored';

export interface Token {
  readonly value: string;
  readonly source: TokenSource;
  /** The file it came from or was written to; undefined for the environment. */
  readonly path: string | undefined;
}

/** A token that cannot be used, said in one line that never quotes it. */
export class TokenError extends Error {
  override readonly name = 'TokenError';
}

/** Where a generated token is kept: $XDG_STATE_HOME/agent-tty/token or ~/.local/state/agent-tty/token. */
export function defaultTokenPath(env: Readonly<Record<string, string | undefined>>): string {
  const state = env.XDG_STATE_HOME?.startsWith('/')
    ? env.XDG_STATE_HOME
    : join(env.HOME || homedir(), '.local', 'state');
  return join(state, 'agent-tty', 'token');
}

function checked(value: string, where: string): string {
  const token = value.trim();
  if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) {
    throw new TokenError(
      `${where}: a token must be at least ${MIN_TOKEN_LENGTH} characters without spaces (e.g. openssl rand -hex 32)`,
    );
  }
  return token;
}

/** Reads a token file, refusing one that others may read (as ssh refuses a private key). */
function readTokenFile(path: string): string {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch (err) {
    throw new TokenError(
      `token file ${path}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`,
    );
  }
  if ((mode & 0o077) !== 0) {
    throw new TokenError(
      `token file ${path} can be read by others (mode ${(mode & 0o777).toString(8)}); chmod 600 it`,
    );
  }
  return checked(readFileSync(path, 'utf8'), `token file ${path}`);
}

/** Generates a token and writes it to `path` (a new 0600 file in a 0700 directory). */
function writeNewToken(path: string): string {
  const token = randomBytes(TOKEN_BYTES).toString('hex');
  makePrivateDir(dirname(path));
  const fd = createPrivateFile(path);
  try {
    writeSync(fd, `${token}\n`);
  } finally {
    closeSync(fd);
  }
  return token;
}

/**
 * The token to require: AGENT_TTY_TOKEN, else `tokenFile`, else the stored one at `storePath`,
 * else a new one written there. Throws TokenError with a message fit to show.
 */
export function resolveToken(options: {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly tokenFile: string | undefined;
  readonly storePath: string;
}): Token {
  const fromEnv = options.env[TOKEN_ENV];
  if (fromEnv !== undefined && fromEnv !== '') {
    if (options.tokenFile !== undefined) {
      throw new TokenError(`give the token either in ${TOKEN_ENV} or with --token-file, not both`);
    }
    return { value: checked(fromEnv, TOKEN_ENV), source: 'env', path: undefined };
  }
  if (options.tokenFile !== undefined) {
    return { value: readTokenFile(options.tokenFile), source: 'file', path: options.tokenFile };
  }
  if (existsSync(options.storePath)) {
    return { value: readTokenFile(options.storePath), source: 'stored', path: options.storePath };
  }
  return { value: writeNewToken(options.storePath), source: 'generated', path: options.storePath };
}
