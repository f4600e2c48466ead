/**
 * Parsing of `terminal_input` actions: checks that each wire action (the flat shape of
 * action-schema.ts) carries exactly the fields its type takes and turns it into a typed Action.
 * Pure. @see spec/tools.md (terminal_input)
 */
import { TerminalError } from '../errors.js';
import { type CompiledQuery, compileQuery } from '../text-query.js';
import { actionSchemas, type MouseEvent, type WireAction } from './action-schema.js';
import type { MouseButton, WheelDirection } from './encode-mouse.js';
import {
  isNamedKey,
  isPrintableKey,
  type KeyPress,
  MODIFIERS,
  type Modifier,
  suggestKey,
} from './keys.js';

/** What an expect-style wait waits for. */
export type ExpectCondition =
  | {
      readonly kind: 'pattern';
      readonly query: CompiledQuery;
      readonly source: string;
      readonly gone: boolean;
    }
  | { readonly kind: 'exit' };

/** Default time an expect-style wait allows. */
export const DEFAULT_WAIT_TIMEOUT_MS = 30_000;

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
  | { readonly type: 'expect'; readonly condition: ExpectCondition; readonly timeoutMs: number };

function actionError(index: number, message: string, code: 'INVALID_ARGUMENT' | 'INVALID_KEY') {
  return new TerminalError(code, `actions[${index}]: ${message}`, { actionIndex: index });
}

/** Checks one wire action's fields against its type and returns the typed action. */
export function parseAction(wire: WireAction, index: number, defaultQuietMs: number): Action {
  const spec = actionSchemas().fieldRules[wire.type];
  const present = Object.keys(wire).filter(
    (k) => k !== 'type' && (wire as unknown as Record<string, unknown>)[k] !== undefined,
  );
  for (const field of present) {
    if (!spec.required.includes(field) && !spec.optional.includes(field)) {
      const allowed = [...spec.required, ...spec.optional];
      throw actionError(
        index,
        `"${field}" does not apply to a ${wire.type} action (it takes ${allowed.length ? allowed.join(', ') : 'no other fields'})`,
        'INVALID_ARGUMENT',
      );
    }
  }
  for (const field of spec.required) {
    if (!present.includes(field)) {
      throw actionError(index, `a ${wire.type} action needs "${field}"`, 'INVALID_ARGUMENT');
    }
  }
  switch (wire.type) {
    case 'text':
    case 'paste':
      return { type: wire.type, text: checkText(wire.text as string, index) };
    case 'key':
      return { type: 'key', press: parseKeyPress(wire.key as string, wire.modifiers, index) };
    case 'mouse':
      return parseMouse(wire, index);
    case 'focus':
      return { type: 'focus', focused: wire.focused as boolean };
    case 'raw':
      return { type: 'raw', bytes: Uint8Array.from(wire.bytes as number[]) };
    case 'wait':
      return parseWait(wire, index, defaultQuietMs);
    default:
      return wire.type satisfies never;
  }
}

function checkText(text: string, index: number): string {
  if (!text.isWellFormed()) {
    throw actionError(
      index,
      'text holds a lone UTF-16 surrogate, which is not valid Unicode; send the character as a whole or use raw bytes',
      'INVALID_ARGUMENT',
    );
  }
  return text;
}

export function parseModifiers(
  modifiers: readonly Modifier[] | undefined,
  index: number,
): Modifiers {
  const list = modifiers ?? [];
  const seen = new Set<string>();
  for (const m of list) {
    if (seen.has(m)) throw actionError(index, `modifier "${m}" is listed twice`, 'INVALID_KEY');
    if (!(MODIFIERS as readonly string[]).includes(m)) {
      throw actionError(index, `unknown modifier "${m}" (use Ctrl, Alt, Shift)`, 'INVALID_KEY');
    }
    seen.add(m);
  }
  return { ctrl: seen.has('Ctrl'), alt: seen.has('Alt'), shift: seen.has('Shift') };
}

function parseKeyPress(key: string, modifiers: Modifier[] | undefined, index: number): KeyPress {
  if (!isNamedKey(key) && !isPrintableKey(key)) {
    const hint = suggestKey(key);
    const more = hint
      ? `; did you mean "${hint}"?`
      : key.length > 1
        ? '; to type text use a text action'
        : '; use a text action for non-ASCII characters';
    throw actionError(index, `unknown key "${key}"${more}`, 'INVALID_KEY');
  }
  return { key: key === 'Space' ? ' ' : key, ...parseModifiers(modifiers, index) };
}

function parseMouse(wire: WireAction, index: number): Action {
  const event = wire.event as MouseEvent;
  if (event !== 'wheel' && (wire.direction !== undefined || wire.count !== undefined)) {
    throw actionError(
      index,
      `"direction" and "count" apply to wheel events only`,
      'INVALID_ARGUMENT',
    );
  }
  if (event === 'wheel' && wire.button !== undefined) {
    throw actionError(index, `"button" does not apply to wheel events`, 'INVALID_ARGUMENT');
  }
  if (event === 'wheel' && wire.direction === undefined) {
    throw actionError(
      index,
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
    modifiers: parseModifiers(wire.modifiers, index),
  };
}

function parseWait(wire: WireAction, index: number, defaultQuietMs: number): Action {
  const kinds = [
    wire.durationMs !== undefined && 'durationMs',
    (wire.settleMs !== undefined || wire.settleTimeoutMs !== undefined) &&
      'settleMs/settleTimeoutMs',
    wire.pattern !== undefined && 'pattern',
    wire.exit !== undefined && 'exit',
  ].filter((k): k is string => typeof k === 'string');
  if (kinds.length > 1) {
    throw actionError(
      index,
      `a wait takes one of durationMs (a pause), settleMs/settleTimeoutMs (until the screen settles), pattern (until text appears or, with gone, leaves) or exit (until the program exits), not ${kinds.join(' and ')}`,
      'INVALID_ARGUMENT',
    );
  }
  const kind = kinds[0];
  const misplaced = (field: string, owner: string) =>
    actionError(index, `"${field}" applies to a wait with ${owner}`, 'INVALID_ARGUMENT');
  if (kind !== 'pattern') {
    if (wire.ignoreCase !== undefined) throw misplaced('ignoreCase', 'pattern');
    if (wire.gone !== undefined) throw misplaced('gone', 'pattern');
  }
  if (kind !== 'pattern' && kind !== 'exit' && wire.timeoutMs !== undefined) {
    throw misplaced('timeoutMs', 'pattern or exit (use settleTimeoutMs to bound a settle)');
  }
  const timeoutMs = wire.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  if (kind === 'durationMs') return { type: 'wait', durationMs: wire.durationMs as number };
  if (kind === 'pattern') {
    const source = wire.pattern as string;
    let query: CompiledQuery;
    try {
      query = compileQuery({ pattern: source, ignoreCase: wire.ignoreCase });
    } catch (err) {
      throw actionError(index, (err as Error).message, 'INVALID_ARGUMENT');
    }
    return {
      type: 'expect',
      condition: { kind: 'pattern', query, source, gone: wire.gone === true },
      timeoutMs,
    };
  }
  if (kind === 'exit') {
    if (wire.exit !== true) throw actionError(index, '"exit" must be true', 'INVALID_ARGUMENT');
    return { type: 'expect', condition: { kind: 'exit' }, timeoutMs };
  }
  checkSettleTiming(wire.settleMs, wire.settleTimeoutMs, defaultQuietMs, `actions[${index}]: `, {
    actionIndex: index,
  });
  return { type: 'observe', settleMs: wire.settleMs, settleTimeoutMs: wire.settleTimeoutMs };
}

/** A strict deadline shorter than the quiet interval it must contain can never be met. */
export function checkSettleTiming(
  settleMs: number | undefined,
  settleTimeoutMs: number | undefined,
  defaultQuietMs: number,
  prefix = '',
  details: Readonly<Record<string, unknown>> = {},
): void {
  const quietMs = settleMs ?? defaultQuietMs;
  if (settleTimeoutMs !== undefined && settleTimeoutMs < quietMs) {
    throw new TerminalError(
      'INVALID_ARGUMENT',
      settleMs === undefined
        ? `${prefix}settleTimeoutMs (${settleTimeoutMs}) is shorter than the default quiet interval (${quietMs} ms); pass a smaller settleMs too`
        : `${prefix}settleTimeoutMs (${settleTimeoutMs}) must be at least settleMs (${settleMs})`,
      { ...details, settleMs, settleTimeoutMs },
    );
  }
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
