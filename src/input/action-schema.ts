/**
 * The action vocabulary of terminal_input and `agent-tty test`: each field of an action defined
 * once, with the action types it applies to. From that one table come the flat strict wire schema
 * (every field optional, so every MCP client can show it) and the fields each type takes.
 * @see spec/tools.md (terminal_input)
 */
import { z } from 'zod';
import { LIMITS } from '../config.js';
import { commonSchemas, lazy } from '../contract/common.js';
import { MODIFIERS } from './keys.js';

/** The action types, as `type` names them. */
export const ACTION_TYPES = ['text', 'paste', 'key', 'mouse', 'focus', 'raw', 'wait'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];
/** What a mouse action does at its cell. */
export const MOUSE_EVENTS = ['click', 'press', 'release', 'wheel'] as const;
export type MouseEvent = (typeof MOUSE_EVENTS)[number];

/** Whether a field is required or optional in an action of each type it applies to. */
type AppliesTo = Partial<Record<ActionType, 'required' | 'optional'>>;

interface ActionField<S extends z.ZodType> {
  readonly appliesTo: AppliesTo;
  /** The wire schema: optional, since the flat object carries the fields of every type. */
  readonly schema: S;
}

const field = <S extends z.ZodType>(appliesTo: AppliesTo, schema: S): ActionField<S> => ({
  appliesTo,
  schema,
});

/** The fields an action of one type takes besides `type`, required ones first. */
export interface FieldRule {
  readonly required: readonly string[];
  readonly optional: readonly string[];
}

/** The action schema and the per-type field rules, built once on first use. */
export const actionSchemas = lazy(() => {
  const { timingMs, settleFields } = commonSchemas();
  const settle = { wait: 'optional' } as const;

  // In wire order: the JSON Schema lists the properties in this order.
  const fields = {
    text: field(
      { text: 'required', paste: 'required' },
      z.string().max(LIMITS.maxPayloadBytes).optional().describe('text, paste: the text.'),
    ),
    key: field(
      { key: 'required' },
      z
        .string()
        .min(1)
        .max(32)
        .optional()
        .describe(
          'key: Enter, Tab, Backspace, Escape, Space, Up, Down, Left, Right, Home, End, PageUp, PageDown, Insert, Delete, F1-F12, Keypad0-9, KeypadEnter…, or one printable ASCII character such as "a" or "/".',
        ),
    ),
    modifiers: field(
      { key: 'optional', mouse: 'optional' },
      z
        .array(z.enum(MODIFIERS))
        .max(3)
        .optional()
        .describe('key, mouse: held modifiers, e.g. ["Ctrl"] for Ctrl+C.'),
    ),
    event: field(
      { mouse: 'required' },
      z
        .enum(MOUSE_EVENTS)
        .optional()
        .describe('mouse: click (press then release), press, release or wheel.'),
    ),
    row: field(
      { mouse: 'required' },
      z.int().min(1).max(LIMITS.maxRows).optional().describe('mouse: 1-based row of the cell.'),
    ),
    column: field(
      { mouse: 'required' },
      z.int().min(1).max(LIMITS.maxCols).optional().describe('mouse: 1-based column of the cell.'),
    ),
    button: field(
      { mouse: 'optional' },
      z
        .enum(['left', 'middle', 'right'])
        .optional()
        .describe('mouse: button for click/press/release (default left).'),
    ),
    direction: field(
      { mouse: 'optional' },
      z.enum(['up', 'down', 'left', 'right']).optional().describe('mouse wheel: direction.'),
    ),
    count: field(
      { mouse: 'optional' },
      z.int().min(1).max(100).optional().describe('mouse wheel: number of steps (default 1).'),
    ),
    focused: field(
      { focus: 'required' },
      z.boolean().optional().describe('focus: true for focus in, false for focus out.'),
    ),
    bytes: field(
      { raw: 'required' },
      z
        .array(z.int().min(0).max(255))
        .min(1)
        .max(LIMITS.maxPayloadBytes)
        .optional()
        .describe('raw: bytes to send as they are, e.g. [27, 91, 65].'),
    ),
    durationMs: field(
      { wait: 'optional' },
      timingMs.optional().describe('wait: pause this long, in ms.'),
    ),
    pattern: field(
      { wait: 'optional' },
      z
        .string()
        .min(1)
        .max(4096)
        .optional()
        .describe(
          'wait: until this regular expression matches a line of the screen (or of output that scrolled past since the wait began).',
        ),
    ),
    ignoreCase: field(
      { wait: 'optional' },
      z.boolean().optional().describe('wait with pattern: match ignoring case.'),
    ),
    gone: field(
      { wait: 'optional' },
      z
        .boolean()
        .optional()
        .describe('wait with pattern: wait until it no longer matches the screen instead.'),
    ),
    exit: field(
      { wait: 'optional' },
      z.literal(true).optional().describe('wait: until the program exits.'),
    ),
    timeoutMs: field(
      { wait: 'optional' },
      z
        .int()
        .min(1)
        .max(LIMITS.maxWaitMs)
        .optional()
        .describe(
          'wait with pattern or exit: give up after this long (default 30000) with WAIT_TIMEOUT.',
        ),
    ),
    settleMs: field(settle, settleFields.settleMs),
    settleTimeoutMs: field(settle, settleFields.settleTimeoutMs),
  };

  const ActionSchema = z
    .strictObject({
      type: z
        .enum(ACTION_TYPES)
        .describe(
          'text: type exact Unicode. paste: paste text (bracketed when the program asks). key: press a key. mouse: click, press, release or wheel at a cell. focus: report focus in/out. raw: send bytes. wait: pause durationMs, or wait for the screen to settle.',
        ),
      ...schemasOf(fields),
    })
    .describe('One input action: set "type" and the fields that type takes.');

  return { ActionSchema, fieldRules: fieldRules(fields) };
});

/** An action as it arrives: the flat wire shape, after schema validation. */
export type WireAction = z.output<ReturnType<typeof actionSchemas>['ActionSchema']>;

function schemasOf<F extends Record<string, ActionField<z.ZodType>>>(
  fields: F,
): { [K in keyof F]: F[K]['schema'] } {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, f] of Object.entries(fields)) shape[name] = f.schema;
  return shape as { [K in keyof F]: F[K]['schema'] };
}

function fieldRules(
  fields: Readonly<Record<string, ActionField<z.ZodType>>>,
): Record<ActionType, FieldRule> {
  const entries = Object.entries(fields);
  const named = (type: ActionType, how: 'required' | 'optional') =>
    entries.filter(([, f]) => f.appliesTo[type] === how).map(([name]) => name);
  const rules = {} as Record<ActionType, FieldRule>;
  for (const type of ACTION_TYPES) {
    rules[type] = { required: named(type, 'required'), optional: named(type, 'optional') };
  }
  return rules;
}
