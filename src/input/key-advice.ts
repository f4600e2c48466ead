/**
 * What to tell an agent whose `key` is not a key: the exact replacement for a chord written as one
 * string ("Ctrl+C" → key "c" with modifiers ["Ctrl"]), for a control character or a sequence of
 * keys, the canonical name for an alias or a case slip ("esc" → "Escape"), the nearest names for a
 * typo. The key field itself stays strict. Pure. @see spec/keys.md (section 1, "When a key is refused")
 */
import { isNamedKey, isPrintableKey, MODIFIERS, type Modifier, NAMED_KEYS } from './keys.js';
import { nearestNames, normalizeName } from './nearest-name.js';

/** How modifiers are spelled inside a key string, in lower case. Cmd never reaches a terminal. */
const MODIFIER_SPELLINGS: Readonly<Record<string, Modifier | 'Cmd'>> = {
  ctrl: 'Ctrl',
  control: 'Ctrl',
  ctl: 'Ctrl',
  c: 'Ctrl',
  alt: 'Alt',
  option: 'Alt',
  opt: 'Alt',
  meta: 'Alt',
  m: 'Alt',
  shift: 'Shift',
  s: 'Shift',
  cmd: 'Cmd',
  command: 'Cmd',
  super: 'Cmd',
  win: 'Cmd',
};

/** Other names for keys, written in lower case without spaces or underscores. */
const KEY_ALIASES: Readonly<Record<string, string>> = {
  return: 'Enter',
  ret: 'Enter',
  cr: 'Enter',
  newline: 'Enter',
  esc: 'Escape',
  bs: 'Backspace',
  bksp: 'Backspace',
  backspc: 'Backspace',
  del: 'Delete',
  ins: 'Insert',
  pgup: 'PageUp',
  pgdn: 'PageDown',
  pgdown: 'PageDown',
  pagedn: 'PageDown',
  spacebar: 'Space',
  ...Object.fromEntries(
    ['Up', 'Down', 'Left', 'Right'].flatMap((d) => [
      [`arrow${d.toLowerCase()}`, d],
      [`${d.toLowerCase()}arrow`, d],
    ]),
  ),
  ...Object.fromEntries(
    NAMED_KEYS.filter((k) => k.startsWith('Keypad')).flatMap((k) => {
      const rest = k.slice('Keypad'.length).toLowerCase();
      return [
        [`kp${rest}`, k],
        [`numpad${rest}`, k],
      ];
    }),
  ),
};

/** Every spelling the table and the case-insensitive names resolve, lower case → canonical. */
const SPELLINGS: ReadonlyMap<string, string> = new Map([
  ...NAMED_KEYS.map((k) => [k.toLowerCase(), k] as const),
  ...Object.entries(KEY_ALIASES),
]);

/** Control characters agents put in `key` for the key that sends them. */
const CONTROL_KEYS: Readonly<Record<string, string>> = {
  '\r': 'Enter',
  '\n': 'Enter',
  '\t': 'Tab',
  '\x1b': 'Escape',
  '\x7f': 'Backspace',
  '\b': 'Backspace',
};

/** Terminal shortcuts of Cmd whose intent has a better tool than a key. */
const CMD_INTENTS: Readonly<Record<string, string>> = {
  c: 'to copy text, read it from the screen (terminal_snapshot)',
  v: 'to paste text, send {"type":"paste","text":"..."}',
};

const MAX_SUGGESTIONS = 4;

const CMD_REASON =
  'a terminal program never receives Cmd, Super or Win (the desktop keeps them); send the key the program itself binds';

/** One key action, as the agent should send it. */
interface Replacement {
  readonly key: string;
  readonly modifiers: ReadonlySet<Modifier>;
}

/** A chord written in one string, split into its parts. */
interface ChordSpelling {
  readonly modifiers: ReadonlySet<Modifier | 'Cmd'>;
  readonly rest: string;
  /** A modifier was a word or `^`, not a one-letter abbreviation that could begin text. */
  readonly spelledOut: boolean;
  /** A spelling that means Alt in a terminal, when it was not "Alt" ("Meta", "Option"). */
  readonly altSpelling: string | undefined;
}

/**
 * The message for a `key` value that is neither a named key nor one printable character;
 * `modifiers` are the action's own, kept in any replacement.
 */
export function adviseUnknownKey(key: string, modifiers: readonly Modifier[] = []): string {
  return `unknown key ${JSON.stringify(key)}: ${advice(key, new Set(modifiers))}`;
}

function advice(key: string, held: ReadonlySet<Modifier>): string {
  const control = CONTROL_KEYS[key] ?? controlChord(key);
  if (control !== undefined) {
    const press = typeof control === 'string' ? { key: control, modifiers: held } : control;
    return `that is a control character; send the key that types it: ${formatAction(merge(press, held))}`;
  }
  const name = resolveName(key);
  if (name !== undefined) {
    const caseOnly = name.toLowerCase() === key.trim().toLowerCase();
    return `the name is ${JSON.stringify(name)}${caseOnly ? ' (names are case-sensitive)' : ''}`;
  }
  const modifier = MODIFIER_SPELLINGS[key.toLowerCase()];
  if (modifier !== undefined && key.length > 1) return modifierAdvice(key, modifier);
  const chord = parseChordSpelling(key.trim());
  if (chord) {
    const advised = chordAdvice(chord, held);
    if (advised !== undefined) return advised;
  }
  const sequence = resolveSequence(key);
  if (sequence) {
    return `one key per action; send them in order: ${sequence.map((r) => formatAction(merge(r, held))).join(', ')}`;
  }
  const near = nearestKeyNames(key);
  if (near.length > 0) return `did you mean ${orList(near.map((n) => JSON.stringify(n)))}?`;
  return [...key].length > 1
    ? 'a key is one printable ASCII character or a name such as Enter, Tab, Up or F5; to type text use a text action'
    : 'a key is one printable ASCII character or a name; use a text action for other characters';
}

function modifierAdvice(spelling: string, modifier: Modifier | 'Cmd'): string {
  if (modifier === 'Cmd') return CMD_REASON;
  const example = formatAction({ key: 'c', modifiers: new Set([modifier]) });
  return `${JSON.stringify(spelling)} is a modifier, not a key; put "${modifier}" in "modifiers" beside the key it holds, e.g. ${example}`;
}

function chordAdvice(chord: ChordSpelling, held: ReadonlySet<Modifier>): string | undefined {
  const exact = resolveChordKey(chord.rest);
  const near = exact === undefined ? nearestKeyNames(chord.rest) : [];
  const key = exact ?? (near.length === 1 ? near[0] : undefined);
  if (key === undefined) {
    return chord.spelledOut
      ? `a chord is a key plus modifiers, and ${JSON.stringify(chord.rest)} is not a key name (spec/keys.md lists them); to type text use a text action`
      : undefined;
  }
  const modifiers = new Set([...held, ...[...chord.modifiers].filter((m) => m !== 'Cmd')]);
  if (chord.modifiers.has('Cmd')) {
    const intent = CMD_INTENTS[key];
    if (intent && modifiers.size === 0) return `${CMD_REASON}; ${intent}`;
    modifiers.add('Ctrl');
    const example = formatAction({ key, modifiers });
    return `${CMD_REASON}, e.g. ${example} if it binds ${describe({ key, modifiers })}`;
  }
  const action = formatAction({ key, modifiers });
  const note = chord.altSpelling ? ` (${chord.altSpelling} is Alt in a terminal)` : '';
  return exact !== undefined
    ? `a chord is a key plus modifiers${note}; send ${action}`
    : `a chord is a key plus modifiers${note}; did you mean ${action}?`;
}

/**
 * Splits "Ctrl+Shift+Tab", "ctrl-c", "C-M-x", "^C" into modifiers and the rest; undefined when
 * the string does not start with a modifier. A trailing separator is the key ("Ctrl+" is Ctrl and +).
 */
function parseChordSpelling(text: string): ChordSpelling | undefined {
  const modifiers = new Set<Modifier | 'Cmd'>();
  let rest = text;
  let spelledOut = false;
  let altSpelling: string | undefined;
  if (rest.length > 1 && rest.startsWith('^')) {
    modifiers.add('Ctrl');
    spelledOut = true;
    rest = rest.slice(1);
  }
  for (let m = /^([a-z]+)\s*([+-])/i.exec(rest); m; m = /^([a-z]+)\s*([+-])/i.exec(rest)) {
    const [all, spelling = '', separator = ''] = m;
    const modifier = MODIFIER_SPELLINGS[spelling.toLowerCase()];
    if (modifier === undefined) break;
    modifiers.add(modifier);
    if (spelling.length > 1) spelledOut = true;
    if (modifier === 'Alt' && spelling.toLowerCase() !== 'alt') altSpelling ??= spelling;
    const after = rest.slice(all.length);
    rest = after.trimStart() || after || separator;
  }
  return modifiers.size > 0 ? { modifiers, rest, spelledOut, altSpelling } : undefined;
}

/** The canonical key of a chord's last part: a letter in lower case, since Shift is explicit. */
function resolveChordKey(text: string): string | undefined {
  if (text === ' ') return 'Space';
  if (isPrintableKey(text)) return text.toLowerCase();
  return resolveName(text);
}

/** A named key for a case slip, an alias or stray spaces ("enter", "Esc", "page down"). */
function resolveName(text: string): string | undefined {
  const spelling = normalizeName(text);
  return spelling === '' ? undefined : SPELLINGS.get(spelling);
}

/** "C-x C-s", "Escape :wq"… as key actions, when every part is a key or a chord of one. */
function resolveSequence(text: string): Replacement[] | undefined {
  const parts = text.trim().split(/\s+/);
  if (parts.length < 2) return undefined;
  const out: Replacement[] = [];
  for (const part of parts) {
    const chord = parseChordSpelling(part);
    const key = chord ? resolveChordKey(chord.rest) : (resolveName(part) ?? validKey(part));
    if (key === undefined || chord?.modifiers.has('Cmd')) return undefined;
    out.push({ key, modifiers: new Set(chord ? (chord.modifiers as ReadonlySet<Modifier>) : []) });
  }
  return out;
}

function validKey(text: string): string | undefined {
  return isNamedKey(text) || isPrintableKey(text) ? text : undefined;
}

/** A C0 control character as the Ctrl chord that sends it (0x03 → Ctrl+c). */
function controlChord(key: string): Replacement | undefined {
  if (key.length !== 1) return undefined;
  const code = key.charCodeAt(0);
  if (code >= 0x20) return undefined;
  // 0x01-0x1a are Ctrl with a letter; 0x00 and 0x1c-0x1f with Space, \ ] ^ _ (spec/keys.md §3).
  const char = code === 0 ? 'Space' : String.fromCharCode(code + (code <= 0x1a ? 0x60 : 0x40));
  return { key: char, modifiers: new Set(['Ctrl']) };
}

/** The named keys closest to a typo, best first. */
function nearestKeyNames(text: string): string[] {
  return nearestNames(text, SPELLINGS, MAX_SUGGESTIONS);
}

function merge(press: Replacement, held: ReadonlySet<Modifier>): Replacement {
  return { key: press.key, modifiers: new Set([...press.modifiers, ...held]) };
}

/** The action as JSON to copy: `{"type":"key","key":"c","modifiers":["Ctrl"]}`. */
function formatAction(press: Replacement): string {
  const modifiers = MODIFIERS.filter((m) => press.modifiers.has(m));
  return JSON.stringify({
    type: 'key',
    key: press.key,
    ...(modifiers.length > 0 ? { modifiers } : {}),
  });
}

function describe(press: Replacement): string {
  return [...MODIFIERS.filter((m) => press.modifiers.has(m)), press.key].join('+');
}

function orList(items: readonly string[]): string {
  return items.length < 2
    ? (items[0] ?? '')
    : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}
