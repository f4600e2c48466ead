/**
 * spec/errors.md's table read as data: each code's row, and the words its next-step column
 * promises every message of that code carries (a tool or field in backquotes; `a` or `b`: one
 * of the two). Examples in backquotes that are not one word (`:set mouse=a`, a JSON action) are
 * not promised.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.js';

export interface ErrorRow {
  readonly code: string;
  readonly meaning: string;
  readonly details: string;
  readonly nextStep: string;
}

/** Every table row of spec/errors.md (`| \`CODE\` | meaning | details | next step |`), in order. */
export function errorRows(): ErrorRow[] {
  const text = readFileSync(join(ROOT, 'spec/errors.md'), 'utf8');
  return text
    .split('\n')
    .filter((line) => /^\|\s*`[A-Z_]+`\s*\|/.test(line))
    .map((line) => {
      const cells = line
        .replace(/^\||\|\s*$/g, '')
        .split(/(?<!\\)\|/)
        .map((c) => c.trim());
      if (cells.length !== 4) throw new Error(`a row of 4 cells: ${line.slice(0, 80)}`);
      const [code, meaning, details, nextStep] = cells as [string, string, string, string];
      return { code: code.replace(/`/g, ''), meaning, details, nextStep };
    });
}

/** The row of `code`; throws when spec/errors.md has none. */
export function errorRow(code: string): ErrorRow {
  const row = errorRows().find((r) => r.code === code);
  if (!row) throw new Error(`spec/errors.md has no row for ${code}`);
  return row;
}

/**
 * The words a next-step cell promises, as groups of alternatives: "Fix the `cwd` or `shell`"
 * → [["cwd", "shell"]]; "with `terminal_close` … `terminal_start`" → [["terminal_close"],
 * ["terminal_start"]].
 */
export function promisedWords(nextStep: string): string[][] {
  const groups: string[][] = [];
  for (const m of nextStep.matchAll(/`([^`]+)`((?:\s+or\s+`[^`]+`)*)/g)) {
    const terms = [m[1] as string, ...[...(m[2] ?? '').matchAll(/`([^`]+)`/g)].map((x) => x[1])];
    const words = terms.filter((t): t is string => t !== undefined && /^[A-Za-z_]\w*$/.test(t));
    if (words.length > 0) groups.push(words);
  }
  return groups;
}

/** Whether `text` has `word` as a whole word (not inside a longer name). */
export function mentions(text: string, word: string): boolean {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w])${escaped}(?![\\w])`).test(text);
}
