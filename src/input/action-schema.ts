/**
 * The action vocabulary of terminal_input and `agent-tty test`: each field of an action defined
 * once, with the action types it applies to. From that one table come the flat strict wire schema
 * (every field optional, so every MCP client can show it) and the fields each type takes.
 * @see spec/tools.md (terminal_input)
 */
import { z } from 'zod';
import { LIMITS } from '../shared/config.js';
import { commonSchemas, lazy } from '../shared/contract/common.js';
import { MODIFIERS } from './keys.js';

/** The action types, as `type` names them. */
export const ACTION_TYPES = ['text', 'paste', 'key', 'mouse', 'focus', 'raw', 'wait'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];
/** What a mouse action does at its cell. */
const MOUSE_EVENTS = ['click', 'press', 'release', 'wheel'] as const;
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
      z
        .string()
        .max(LIMITS.maxPayloadBytes)
        .optional()
        .describe('text, paste: the text (paste is bracketed if asked).'),
    ),
    key: field(
      { key: 'required' },
      z
        .string()
        .min(1)
        .max(32)
        .optional()
        .describe('key: Enter, Tab, Escape, Backspace, Up, Home, F1… or one character.'),
    ),
    modifiers: field(
      { key: 'optional', mouse: 'optional' },
      z
        .array(z.enum(MODIFIERS))
        .max(3)
        .optional()
        .describe('key, mouse: keys held; key "c" with ["Ctrl"] is Ctrl+C.'),
    ),
    event: field(
      { mouse: 'required' },
      z.enum(MOUSE_EVENTS).optional().describe("mouse: needs the program's mouse mode on."),
    ),
    row: field(
      { mouse: 'required' },
      z.int().min(1).max(LIMITS.maxRows).optional().describe('mouse: 1-based row.'),
    ),
    column: field(
      { mouse: 'required' },
      z.int().min(1).max(LIMITS.maxCols).optional().describe('mouse: 1-based column.'),
    ),
    button: field(
      { mouse: 'optional' },
      z.enum(['left', 'middle', 'right']).optional().describe('mouse: default left.'),
    ),
    direction: field(
      { mouse: 'optional' },
      z.enum(['up', 'down', 'left', 'right']).optional().describe('mouse wheel: direction.'),
    ),
    count: field(
      { mouse: 'optional' },
      z.int().min(1).max(100).optional().describe('mouse wheel: steps (default 1).'),
    ),
    focused: field(
      { focus: 'required' },
      z.boolean().optional().describe('focus: report focus in (true) or out.'),
    ),
    bytes: field(
      { raw: 'required' },
      z
        .array(z.int().min(0).max(255))
        .min(1)
        .max(LIMITS.maxPayloadBytes)
        .optional()
        .describe('raw: sent as they are.'),
    ),
    durationMs: field({ wait: 'optional' }, timingMs.optional().describe('wait: pause this long.')),
    pattern: field(
      { wait: 'optional' },
      z
        .string()
        .min(1)
        .max(4096)
        .optional()
        .describe('wait: until a regex matches a line on screen or scrolled off.'),
    ),
    ignoreCase: field(
      { wait: 'optional' },
      z.boolean().optional().describe('wait, pattern: ignore case.'),
    ),
    gone: field(
      { wait: 'optional' },
      z.boolean().optional().describe('wait, pattern: until off the screen.'),
    ),
    exit: field({ wait: 'optional' }, z.literal(true).optional().describe('wait: until it exits.')),
    command: field(
      { wait: 'optional' },
      z.literal(true).optional().describe('wait: until the shell command ends.'),
    ),
    timeoutMs: field(
      { wait: 'optional' },
      z
        .int()
        .min(1)
        .max(LIMITS.maxWaitMs)
        .optional()
        .describe('wait: then WAIT_TIMEOUT (default 30000).'),
    ),
    stopOnInput: field(
      { wait: 'optional' },
      z.boolean().optional().describe('wait: false: no INPUT_REQUIRED.'),
    ),
    settleMs: field(
      settle,
      settleFields.settleMs.describe('wait: quiet for this wait (default 250).'),
    ),
    settleTimeoutMs: field(
      settle,
      settleFields.settleTimeoutMs.describe("wait: this wait's deadline, then go on."),
    ),
  };

  const ActionSchema = z.strictObject({
    type: z.enum(ACTION_TYPES).describe('Other fields name the types they go with.'),
    ...schemasOf(fields),
  });

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
