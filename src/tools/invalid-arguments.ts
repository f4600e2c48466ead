/**
 * INVALID_ARGUMENT for arguments that break a tool's input schema: each zod issue said as its
 * field's path, what the field takes and the value given ("cols: expected an integer, got 1.5"),
 * so an agent can fix the named field and call again (spec/errors.md). Also the names no
 * argument object may use (`__proto__`, `constructor`, `prototype`), found in the arguments as
 * parsed from JSON, before a schema copies them: zod and JavaScript objects drop `__proto__`.
 */
import type { z } from 'zod';
import { TerminalError } from '../errors.js';

const MAX_ISSUES = 10;
/** A field's path in a message has at most this many parts. */
const MAX_PATH_PARTS = 16;
/** A value quoted in a message is cut to this many characters. */
const MAX_VALUE_CHARS = 40;

/** A zod issue with the input it was about (safeParse with reportInput). */
type Issue = z.core.$ZodIssue;

export function invalidArguments(toolName: string, error: z.ZodError): TerminalError {
  const issues = error.issues
    .slice(0, MAX_ISSUES)
    .map((issue) => ({ path: formatPath(issue.path), message: describeIssue(issue) }));
  const problems = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
  const extra = error.issues.length - issues.length;
  const more = extra > 0 ? ` (and ${extra} more)` : '';
  const fix = issues.length > 1 ? 'fix these fields' : 'fix the field';
  return new TerminalError(
    'INVALID_ARGUMENT',
    `invalid arguments for ${toolName}: ${problems.join('; ')}${more}; nothing was done: ${fix} and call ${toolName} again`,
    { issues },
  );
}

/** Keys refused in every object of a tool's arguments, env included. */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** A field's path as a chain from the field up, so that a deep walk shares its prefixes. */
interface PathLink {
  readonly key: PropertyKey;
  readonly parent: PathLink | undefined;
}

/** A path of at most MAX_PATH_PARTS parts: a deep one keeps its first and last parts. */
function shortPath(path: PropertyKey[]): PropertyKey[] {
  if (path.length <= MAX_PATH_PARTS) return path;
  const half = MAX_PATH_PARTS / 2;
  return [...path.slice(0, half), '…', ...path.slice(-half)];
}

function pathOf(link: PathLink | undefined): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let at = link; at !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * INVALID_ARGUMENT naming each reserved key in `args` (own keys, at any depth), or undefined
 * when there is none. Walks without recursion: arguments may nest deeper than the stack.
 */
export function reservedKeysError(toolName: string, args: unknown): TerminalError | undefined {
  const found: PathLink[] = [];
  const stack: { value: unknown; at: PathLink | undefined }[] = [{ value: args, at: undefined }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, at } = item;
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        stack.push({ value: value[i], at: { key: i, parent: at } });
      }
      continue;
    }
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      const link = { key, parent: at };
      if (RESERVED_KEYS.has(key)) found.push(link);
      else stack.push({ value: (value as Record<string, unknown>)[key], at: link });
    }
  }
  if (found.length === 0) return undefined;
  const issues = found.slice(0, MAX_ISSUES).map((link) => ({
    path: formatPath(shortPath(pathOf(link))),
    message: `"${String(link.key)}" is not accepted as a name, in any object or in env`,
  }));
  const problems = issues.map((i) => `${i.path}: ${i.message}`);
  const extra = found.length - issues.length;
  const more = extra > 0 ? ` (and ${extra} more)` : '';
  return new TerminalError(
    'INVALID_ARGUMENT',
    `invalid arguments for ${toolName}: ${problems.join('; ')}${more}; nothing was done: remove ${found.length > 1 ? 'these fields' : 'the field'} and call ${toolName} again`,
    { issues },
  );
}

/** What the field takes and what it was given, in words. */
function describeIssue(issue: Issue): string {
  const got = `got ${showValue(issue.input)}`;
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${typeNoun(issue.expected)}, ${got}`;
    case 'too_small':
      return `expected ${bound(issue.origin, 'at least', 'more than', issue.minimum, issue)}, ${gotSize(issue.input)}`;
    case 'too_big':
      return `expected ${bound(issue.origin, 'at most', 'less than', issue.maximum, issue)}, ${gotSize(issue.input)}`;
    case 'invalid_value':
      return `expected ${listValues(issue.values)}, ${got}`;
    case 'invalid_key':
      // A record's key (an env name) broke its schema: say that schema's words, not zod's.
      return issue.issues.map((inner) => describeIssue(inner as Issue)).join('; ') || issue.message;
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
    default:
      return issue.message;
  }
}

function bound(
  origin: string,
  inclusive: string,
  exclusive: string,
  limit: number | bigint,
  issue: { readonly inclusive?: boolean; readonly exact?: boolean },
): string {
  const relation = issue.exact ? 'exactly' : issue.inclusive === false ? exclusive : inclusive;
  const unit = origin === 'string' ? 'character' : origin === 'array' ? 'item' : undefined;
  if (unit === undefined) return `${relation} ${limit}`;
  return `${relation} ${limit} ${unit}${limit === 1 || limit === 1n ? '' : 's'}`;
}

/** A string's or array's length (the value itself may be long), else the value. */
function gotSize(input: unknown): string {
  if (typeof input === 'string' || Array.isArray(input)) return `got ${input.length}`;
  return `got ${showValue(input)}`;
}

/** `"a"`, `"a" or "b"`, `"a", "b" or "c"`. */
function listValues(values: readonly unknown[]): string {
  const quoted = values.map((v) => showValue(v));
  return quoted.length > 1
    ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`
    : (quoted[0] ?? 'nothing');
}

function typeNoun(expected: string): string {
  if (expected === 'int') return 'an integer';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

/** A value as an agent would write it, cut short; objects and arrays by their kind. */
function showValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (value !== null && typeof value === 'object') return 'an object';
  const text = typeof value === 'bigint' ? String(value) : (JSON.stringify(value) ?? String(value));
  const chars = Array.from(text);
  return chars.length > MAX_VALUE_CHARS ? `${chars.slice(0, MAX_VALUE_CHARS - 1).join('')}…` : text;
}

/** `actions[0].key`: array indexes in brackets, names joined with dots. */
function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}
