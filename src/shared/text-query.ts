/**
 * A search query as agents write it (literal text, or a JavaScript regular expression, optionally
 * ignoring case) checked once, with INVALID_ARGUMENT for a pattern that is not one. A leaf: used
 * by input validation, waits and snapshot search alike. The main thread only compiles a query to
 * check it; it never runs one (a pattern can backtrack for hours): match/ runs them in a worker.
 */
import { TerminalError } from './errors.js';

export interface TextQuery {
  readonly text?: string | undefined;
  readonly pattern?: string | undefined;
  readonly ignoreCase?: boolean | undefined;
}

/** A checked query: a regular expression source and its flags (always global, multi-line, u). */
export interface CompiledQuery {
  readonly source: string;
  readonly flags: string;
}

/** The query as a global, multi-line regular expression; INVALID_ARGUMENT when it is not one. */
export function compileQuery(query: TextQuery, field = 'pattern'): CompiledQuery {
  const flags = `gm${query.ignoreCase ? 'i' : ''}u`;
  if (query.text !== undefined) {
    return { source: query.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), flags };
  }
  const source = query.pattern ?? '';
  try {
    // Compiling parses the pattern (linear in its length); nothing is matched here.
    new RegExp(source, flags);
  } catch (err) {
    throw new TerminalError(
      'INVALID_ARGUMENT',
      `${field} ${JSON.stringify(query.pattern)} is not a valid regular expression: ${(err as Error).message}`,
      { pattern: query.pattern },
    );
  }
  return { source, flags };
}
