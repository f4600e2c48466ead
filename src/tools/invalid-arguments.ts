/**
 * INVALID_ARGUMENT for arguments that break a tool's input schema: each zod issue said as its
 * field's path, what the field takes and the value given ("cols: expected an integer, got 1.5"),
 * so an agent can fix the named field and call again (spec/errors.md): an unknown field with the
 * accepted names nearest it ("timeout": did you mean "timeoutMs"?), a value of the wrong type
 * once (not also the size checks of the type it is not). Also the names no
 * argument object may use (`__proto__`, `constructor`, `prototype`), found in the arguments as
 * parsed from JSON, before a schema copies them: zod and JavaScript objects drop `__proto__`.
 */
import { z } from 'zod';
import { nearestNames, normalizeName } from '../input/nearest-name.js';
import { TerminalError } from '../shared/errors.js';

const MAX_ISSUES = 10;
/** A field's path in a message has at most this many parts. */
const MAX_PATH_PARTS = 16;
/** A value quoted in a message is cut to this many characters. */
const MAX_VALUE_CHARS = 40;

/** A zod issue with the input it was about (safeParse with reportInput). */
type Issue = z.core.$ZodIssue;

export function invalidArguments(
  toolName: string,
  error: z.ZodError,
  schema?: z.ZodType,
): TerminalError {
  const issues = withoutEchoes(error.issues)
    .slice(0, MAX_ISSUES)
    .map((issue) => ({ path: formatPath(issue.path), message: describeIssue(issue, schema) }));
  const problems = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
  const extra = withoutEchoes(error.issues).length - issues.length;
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

/**
 * The issues without those that repeat a wrong type: zod checks a string given for an array
 * against the array's size as well ("modifiers": "Ctrl" is also "at most 3"), which only confuses.
 */
function withoutEchoes(issues: readonly Issue[]): Issue[] {
  const mistyped = new Set(
    issues.filter((i) => i.code === 'invalid_type').map((i) => JSON.stringify(i.path)),
  );
  return issues.filter((i) => i.code === 'invalid_type' || !mistyped.has(JSON.stringify(i.path)));
}

/** Other names agents give fields, lower case, and the field meant where it is accepted. */
const FIELD_ALIASES: Readonly<Record<string, string>> = {
  cmd: 'command',
  dir: 'cwd',
  directory: 'cwd',
  workdir: 'cwd',
  workingdirectory: 'cwd',
  columns: 'cols',
  width: 'cols',
  lines: 'rows',
  height: 'rows',
  timeout: 'timeoutMs',
  id: 'sessionId',
  session: 'sessionId',
};

/** What the field takes and what it was given, in words. */
function describeIssue(issue: Issue, schema?: z.ZodType): string {
  const got = `got ${showValue(issue.input)}`;
  switch (issue.code) {
    case 'invalid_type':
      // A string where a list of strings goes is the one item of that list.
      if (issue.expected === 'array' && typeof issue.input === 'string') {
        return `expected an array, got ${showValue(issue.input)}: pass ${asList(issue.input)}`;
      }
      return `expected ${typeNoun(issue.expected)}, ${got}`;
    case 'too_small':
      return `expected ${bound(issue.origin, 'at least', 'more than', issue.minimum, issue)}, ${gotSize(issue.input)}`;
    case 'too_big':
      return `expected ${bound(issue.origin, 'at most', 'less than', issue.maximum, issue)}, ${gotSize(issue.input)}`;
    case 'invalid_value':
      return `expected ${listValues(issue.values)}, ${got}`;
    case 'invalid_key':
      // A record's key (an env name) broke its schema: say that schema's words, not zod's.
      return (
        issue.issues.map((inner) => describeIssue(inner as Issue, schema)).join('; ') ||
        issue.message
      );
    case 'unrecognized_keys': {
      const accepted = schema ? fieldNamesAt(schema, issue.path) : [];
      const named = issue.keys.map((k) => `${JSON.stringify(k)}${suggestField(k, accepted)}`);
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${named.join(', ')}`;
    }
    default:
      return issue.message;
  }
}

/**
 * " (did you mean "timeoutMs"?)" for an unknown field: the accepted field it is another name for,
 * else those it begins (4 characters or more: "settle"), else the nearest by spelling; "" if none.
 */
function suggestField(key: string, accepted: readonly string[]): string {
  const typed = normalizeName(key);
  const alias = FIELD_ALIASES[typed];
  const begun = typed.length >= 4 ? accepted.filter((n) => normalizeName(n).startsWith(typed)) : [];
  const near =
    alias !== undefined && accepted.includes(alias)
      ? [alias]
      : begun.length > 0
        ? begun
        : nearestNames(
            key,
            accepted.map((name) => [normalizeName(name), name] as const),
          );
  return near.length > 0 ? ` (did you mean ${listValues(near.slice(0, 4))}?)` : '';
}

/** The field names of the object the schema takes at `path`; none where it takes no object. */
function fieldNamesAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let at: z.ZodType | undefined = schema;
  for (const part of path) {
    const inner = unwrap(at);
    if (typeof part === 'number')
      at = inner instanceof z.ZodArray ? (inner.element as z.ZodType) : undefined;
    else at = inner instanceof z.ZodObject ? inner.shape[String(part)] : undefined;
    if (at === undefined) return [];
  }
  const inner = unwrap(at);
  return inner instanceof z.ZodObject ? Object.keys(inner.shape) : [];
}

/** The schema inside optional, nullable, default and pipe wrappers. */
function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let at = schema;
  for (let depth = 0; depth < 8 && at !== undefined; depth++) {
    if (at instanceof z.ZodOptional || at instanceof z.ZodNullable || at instanceof z.ZodDefault) {
      at = at.unwrap() as z.ZodType;
    } else if (at instanceof z.ZodPipe) at = at.in as z.ZodType;
    else break;
  }
  return at;
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

/** A string meant as a list, as one: "Ctrl" → ["Ctrl"], "Ctrl+Shift" → ["Ctrl","Shift"]. */
function asList(text: string): string {
  const parts = text.split(/[\s,+]+/).filter((part) => part !== '');
  return `[${(parts.length > 1 ? parts : [text]).map((part) => showValue(part)).join(',')}]`;
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
