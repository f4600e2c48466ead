/**
 * A search query as agents write it (literal text, or a regular expression, optionally ignoring
 * case) compiled once into a RegExp, with INVALID_ARGUMENT for a pattern that is not one. A leaf:
 * used by input validation, waits and snapshot search alike.
 */
import { TerminalError } from './errors.js';

export interface TextQuery {
  readonly text?: string | undefined;
  readonly pattern?: string | undefined;
  readonly ignoreCase?: boolean | undefined;
}

/** The query as a global, multi-line regular expression; INVALID_ARGUMENT when it is not one. */
export function compileQuery(query: TextQuery, field = 'pattern'): RegExp {
  const flags = `gm${query.ignoreCase ? 'i' : ''}u`;
  if (query.text !== undefined) {
    return new RegExp(query.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags);
  }
  try {
    return new RegExp(query.pattern ?? '', flags);
  } catch (err) {
    throw new TerminalError(
      'INVALID_ARGUMENT',
      `${field} ${JSON.stringify(query.pattern)} is not a valid regular expression: ${(err as Error).message}`,
      { pattern: query.pattern },
    );
  }
}
