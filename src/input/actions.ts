/**
 * Parsing of `terminal_input` actions: checks that each wire action (the flat shape of
 * action-schema.ts) carries exactly the fields its type takes and turns it into a typed Action.
 * Pure. @see spec/tools.md (terminal_input)
 */
import { TerminalError } from '../shared/errors.js';
import { type CompiledQuery, compileQuery } from '../shared/text-query.js';
import { actionSchemas, type MouseEvent, type WireAction } from './action-schema.js';
import type { MouseButton, WheelDirection } from './encode-mouse.js';
import { adviseUnknownKey } from './key-advice.js';
import { isNamedKey, isPrintableKey, type KeyPress, MODIFIERS, type Modifier } from './keys.js';

/** What an expect-style wait waits for. */
export type ExpectCondition =
  | {
      readonly kind: 'pattern';
      readonly query: CompiledQuery;
      readonly source: string;
      readonly gone: boolean;
    }
  | { readonly kind: 'exit' }
  /** The shell's current command to finish (its D mark), or the shell to exit. */
  | { readonly kind: 'command' };

/** Default time an expect-style wait allows. */
const DEFAULT_WAIT_TIMEOUT_MS = 30_000;

export interface Modifiers {
  readonly ctrl: boolean;
  readonly alt: boolean;
  readonly shift: boolean;
}

export type Action =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'paste'; readonly text: string }
  | { readonly type: 'key'; readonly press: KeyPress }
  | {
      readonly type: 'mouse';
      readonly event: MouseEvent;
      readonly row: number;
      readonly column: number;
      readonly button: MouseButton;
      readonly direction: WheelDirection;
      readonly count: number;
      readonly modifiers: Modifiers;
    }
  | { readonly type: 'focus'; readonly focused: boolean }
  | { readonly type: 'raw'; readonly bytes: Uint8Array }
  | { readonly type: 'wait'; readonly durationMs: number }
  | {
      readonly type: 'observe';
      readonly settleMs: number | undefined;
      readonly settleTimeoutMs: number | undefined;
    }
  | {
      readonly type: 'expect';
      readonly condition: ExpectCondition;
      readonly timeoutMs: number;
      /** End early when the program waits for input instead (INPUT_REQUIRED). */
      readonly stopOnInput: boolean;
    };

/** Which action an error is about: its index, and how the caller's list names it. */
export interface ActionAt {
  readonly index: number;
  /** `actions[2]` in a terminal_input call, `steps[7]` in a test script. */
  readonly label: string;
}

/** Action `index` of a list (a terminal_input call's `actions` by default). */
export function actionAt(index: number, list = 'actions'): ActionAt {
  return { index, label: `${list}[${index}]` };
}

/** An error about one action: its label opens the message, details.actionIndex names it. */
export function actionError(
  at: ActionAt,
  message: string,
  code: 'INVALID_ARGUMENT' | 'INVALID_KEY' | 'MOUSE_NOT_ENABLED' | 'OUT_OF_BOUNDS',
  details: Readonly<Record<string, unknown>> = {},
): TerminalError {
  return new TerminalError(code, `${at.label}: ${message}`, { actionIndex: at.index, ...details });
}

/** Checks one wire action's fields against its type and returns the typed action. */
export function parseAction(wire: WireAction, at: ActionAt): Action {
  const spec = actionSchemas().fieldRules[wire.type];
  const present = Object.keys(wire).filter(
    (k) => k !== 'type' && (wire as unknown as Record<string, unknown>)[k] !== undefined,
  );
  for (const field of present) {
    if (!spec.required.includes(field) && !spec.optional.includes(field)) {
      const allowed = [...spec.required, ...spec.optional];
      throw actionError(
        at,
        `"${field}" does not apply to a ${wire.type} action (it takes ${allowed.length ? allowed.join(', ') : 'no other fields'})`,
        'INVALID_ARGUMENT',
      );
    }
  }
  for (const field of spec.required) {
    if (!present.includes(field)) {
      throw actionError(at, `a ${wire.type} action needs "${field}"`, 'INVALID_ARGUMENT');
    }
  }
  switch (wire.type) {
    case 'text':
    case 'paste':
      return { type: wire.type, text: checkText(wire.text as string, at) };
    case 'key':
      return { type: 'key', press: parseKeyPress(wire.key as string, wire.modifiers, at) };
    case 'mouse':
      return parseMouse(wire, at);
    case 'focus':
      return { type: 'focus', focused: wire.focused as boolean };
    case 'raw':
      return { type: 'raw', bytes: Uint8Array.from(wire.bytes as number[]) };
    case 'wait':
      return parseWait(wire, at);
    default:
      return wire.type satisfies never;
  }
}

function checkText(text: string, at: ActionAt): string {
  if (!text.isWellFormed()) {
    throw actionError(
      at,
      'text holds a lone UTF-16 surrogate, which is not valid Unicode; send the character as a whole or use raw bytes',
      'INVALID_ARGUMENT',
    );
  }
  return text;
}

export function parseModifiers(
  modifiers: readonly Modifier[] | undefined,
  at: ActionAt,
): Modifiers {
  const list = modifiers ?? [];
  const seen = new Set<string>();
  for (const m of list) {
    if (seen.has(m)) throw actionError(at, `modifier "${m}" is listed twice`, 'INVALID_KEY');
    if (!(MODIFIERS as readonly string[]).includes(m)) {
      throw actionError(at, `unknown modifier "${m}" (use Ctrl, Alt, Shift)`, 'INVALID_KEY');
    }
    seen.add(m);
  }
  return { ctrl: seen.has('Ctrl'), alt: seen.has('Alt'), shift: seen.has('Shift') };
}

function parseKeyPress(key: string, modifiers: Modifier[] | undefined, at: ActionAt): KeyPress {
  if (!isNamedKey(key) && !isPrintableKey(key)) {
    throw actionError(at, adviseUnknownKey(key, modifiers), 'INVALID_KEY');
  }
  return { key: key === 'Space' ? ' ' : key, ...parseModifiers(modifiers, at) };
}

function parseMouse(wire: WireAction, at: ActionAt): Action {
  const event = wire.event as MouseEvent;
  if (event !== 'wheel' && (wire.direction !== undefined || wire.count !== undefined)) {
    throw actionError(at, `"direction" and "count" apply to wheel events only`, 'INVALID_ARGUMENT');
  }
  if (event === 'wheel' && wire.button !== undefined) {
    throw actionError(at, `"button" does not apply to wheel events`, 'INVALID_ARGUMENT');
  }
  if (event === 'wheel' && wire.direction === undefined) {
    throw actionError(
      at,
      `a wheel event needs "direction" (up, down, left or right)`,
      'INVALID_ARGUMENT',
    );
  }
  return {
    type: 'mouse',
    event,
    row: wire.row as number,
    column: wire.column as number,
    button: wire.button ?? 'left',
    direction: wire.direction ?? 'up',
    count: wire.count ?? 1,
    modifiers: parseModifiers(wire.modifiers, at),
  };
}

function parseWait(wire: WireAction, at: ActionAt): Action {
  const kinds = [
    wire.durationMs !== undefined && 'durationMs',
    (wire.settleMs !== undefined || wire.settleTimeoutMs !== undefined) &&
      'settleMs/settleTimeoutMs',
    wire.pattern !== undefined && 'pattern',
    wire.exit !== undefined && 'exit',
    wire.command !== undefined && 'command',
  ].filter((k): k is string => typeof k === 'string');
  if (kinds.length > 1) {
    throw actionError(
      at,
      `a wait takes one of durationMs (a pause), settleMs/settleTimeoutMs (until the screen settles), pattern (until text appears or, with gone, leaves), exit (until the program exits) or command (until the shell's command finishes), not ${kinds.join(' and ')}`,
      'INVALID_ARGUMENT',
    );
  }
  const kind = kinds[0];
  const misplaced = (field: string, owner: string) =>
    actionError(at, `"${field}" applies to a wait with ${owner}`, 'INVALID_ARGUMENT');
  if (kind !== 'pattern') {
    if (wire.ignoreCase !== undefined) throw misplaced('ignoreCase', 'pattern');
    if (wire.gone !== undefined) throw misplaced('gone', 'pattern');
  }
  if (kind !== 'pattern' && kind !== 'exit' && kind !== 'command' && wire.timeoutMs !== undefined) {
    throw misplaced(
      'timeoutMs',
      'pattern, exit or command (use settleTimeoutMs to bound a settle)',
    );
  }
  if (
    kind !== 'pattern' &&
    kind !== 'exit' &&
    kind !== 'command' &&
    wire.stopOnInput !== undefined
  ) {
    throw misplaced('stopOnInput', 'pattern, exit or command');
  }
  const timeoutMs = wire.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  const stopOnInput = wire.stopOnInput !== false;
  if (kind === 'durationMs') return { type: 'wait', durationMs: wire.durationMs as number };
  if (kind === 'pattern') {
    const source = wire.pattern as string;
    let query: CompiledQuery;
    try {
      query = compileQuery({ pattern: source, ignoreCase: wire.ignoreCase });
    } catch (err) {
      throw actionError(at, (err as Error).message, 'INVALID_ARGUMENT');
    }
    return {
      type: 'expect',
      condition: { kind: 'pattern', query, source, gone: wire.gone === true },
      timeoutMs,
      stopOnInput,
    };
  }
  if (kind === 'exit') {
    if (wire.exit !== true) throw actionError(at, '"exit" must be true', 'INVALID_ARGUMENT');
    return { type: 'expect', condition: { kind: 'exit' }, timeoutMs, stopOnInput };
  }
  if (kind === 'command') {
    if (wire.command !== true) throw actionError(at, '"command" must be true', 'INVALID_ARGUMENT');
    return { type: 'expect', condition: { kind: 'command' }, timeoutMs, stopOnInput };
  }
  return { type: 'observe', settleMs: wire.settleMs, settleTimeoutMs: wire.settleTimeoutMs };
}

/** UTF-8 bytes of text, paste and raw payloads in a batch. */
export function payloadBytes(actions: readonly Action[]): number {
  let total = 0;
  for (const a of actions) {
    if (a.type === 'text' || a.type === 'paste') total += Buffer.byteLength(a.text, 'utf8');
    else if (a.type === 'raw') total += a.bytes.length;
  }
  return total;
}
