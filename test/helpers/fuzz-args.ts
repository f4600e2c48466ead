/**
 * fast-check arbitraries for fuzzing the tool surface: hostile values (wrong types, huge and
 * negative numbers, NaN-like strings, lone surrogates, strings up to 1 MiB, arrays, deep
 * nesting), valid-looking arguments generated from a tool's advertised input schema, one-field
 * mutations of them, and terminal_input batches that must be rejected before anything is sent.
 * Serialize with `toJson`, which expands `Deep` markers past JSON.stringify's recursion limit.
 */
import fc from 'fast-check';

/** A JSON Schema as tools/list advertises it (the parts used here). */
export interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  propertyNames?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
}

export type Args = Record<string, unknown>;

/** Nesting `depth` arrays deep, written out by `toJson` (JSON.stringify overflows its stack). */
export class Deep {
  constructor(readonly depth: number) {}
  toJSON(): string {
    return `\u0001DEEP:${this.depth}\u0001`;
  }
}

/** JSON text of `value`, with every Deep marker expanded to its nesting. */
export function toJson(value: unknown): string {
  return (JSON.stringify(value) ?? 'undefined').replace(
    /"\\u0001DEEP:(\d+)\\u0001"/g,
    (_, n: string) => `${'['.repeat(Number(n))}0${']'.repeat(Number(n))}`,
  );
}

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));

const HOSTILE_CONSTANTS: unknown[] = [
  null,
  true,
  false,
  0,
  -0,
  -1,
  0.5,
  -1.5,
  2 ** 31,
  2 ** 32 + 1,
  2 ** 53,
  -(2 ** 53),
  2 ** 53 + 2,
  1e308,
  -1e308,
  5e-324,
  'NaN',
  'Infinity',
  '-Infinity',
  '1e400',
  '0x1F',
  '-0',
  '١٢',
  '',
  ' ',
  'null',
  'undefined',
  '[object Object]',
  '__proto__',
  'constructor',
  '\u0000',
  '\ud800',
  'a\udfff',
  '\udc00\ud800',
  '\u202e\u2066',
  '\u001b[2J\u001b]0;x\u0007',
  '../../../etc/passwd',
  [],
  {},
  [[]],
  [{}],
  { type: 'text', text: 'x' },
];

/** A string of `length` UTF-16 units: plain, multi-byte, or ending in half a surrogate pair. */
const longString = fc
  .tuple(
    fc.constantFrom(1 << 10, 1 << 16, (1 << 20) - 1, 1 << 20, (1 << 20) + 1),
    fc.constantFrom('x', 'é', '😀', '\ud800'),
  )
  .map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length));

/** Anything a careless or hostile client could put where a value is expected. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constantFrom(...HOSTILE_CONSTANTS), weight: 6 },
  { arbitrary: fc.integer(), weight: 2 },
  { arbitrary: fc.double(), weight: 2 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }), weight: 1 },
  {
    arbitrary: fc.array(loneSurrogate, { minLength: 1, maxLength: 4 }).map((a) => a.join('')),
    weight: 1,
  },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
  { arbitrary: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }), weight: 1 },
  { arbitrary: fc.integer({ min: 50, max: 20_000 }).map((n) => new Deep(n)), weight: 1 },
  { arbitrary: longString, weight: 1 },
);

/** Values that a schema may accept: an arbitrary per JSON Schema keyword, kept small. */
export function validValue(schema: Schema): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map(validValue));
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? 'string'];
  return fc.oneof(...types.map((type) => valueOfType(type, schema)));
}

function valueOfType(type: string, schema: Schema): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string': {
      const minLength = schema.minLength ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 12, 12));
      const text = fc.string({ minLength, maxLength });
      if (!schema.pattern) return text;
      const pattern = new RegExp(schema.pattern, 'u');
      return text.filter((s) => pattern.test(s));
    }
    case 'integer': {
      const min = schema.minimum ?? -1000;
      const max = schema.maximum ?? 1000;
      return fc.oneof(fc.integer({ min, max: Math.min(max, min + 40) }), fc.integer({ min, max }));
    }
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 4, 4));
      return fc.array(validValue(schema.items ?? {}), { minLength, maxLength });
    }
    case 'object':
      return validObject(schema);
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

function validObject(schema: Schema): fc.Arbitrary<Args> {
  const properties = schema.properties ?? {};
  const extra = schema.additionalProperties;
  if (Object.keys(properties).length === 0 && typeof extra === 'object') {
    const key = schema.propertyNames ? validValue(schema.propertyNames) : fc.string();
    return fc.dictionary(key as fc.Arbitrary<string>, validValue(extra), { maxKeys: 3 });
  }
  const shape = Object.fromEntries(
    Object.entries(properties).map(([name, sub]) => [name, validValue(sub)]),
  );
  return fc.record(shape, { requiredKeys: schema.required ?? [] }) as fc.Arbitrary<Args>;
}

/** One action of each type with the fields that type takes (spec/tools.md, terminal_input). */
export const validAction: fc.Arbitrary<Args> = fc.oneof(
  fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 20 }) }),
  fc.record({ type: fc.constant('paste'), text: fc.string({ maxLength: 20 }) }),
  fc.record(
    {
      type: fc.constant('key'),
      key: fc.constantFrom('Enter', 'Tab', 'Escape', 'Up', 'F5', 'PageDown', 'a', '/', 'Z'),
      modifiers: fc.subarray(['Ctrl', 'Alt']),
    },
    { requiredKeys: ['type', 'key'] },
  ),
  fc.record(
    {
      type: fc.constant('mouse'),
      event: fc.constantFrom('click', 'press', 'release', 'wheel'),
      row: fc.integer({ min: 1, max: 20 }),
      column: fc.integer({ min: 1, max: 80 }),
      button: fc.constantFrom('left', 'middle', 'right'),
    },
    { requiredKeys: ['type', 'event', 'row', 'column'] },
  ),
  fc.record({ type: fc.constant('focus'), focused: fc.boolean() }),
  fc.record({
    type: fc.constant('raw'),
    bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 8 }),
  }),
  fc.record({ type: fc.constant('wait'), durationMs: fc.integer({ min: 0, max: 20 }) }),
);

const ACTION_FIELDS = [
  'type',
  'text',
  'key',
  'modifiers',
  'event',
  'row',
  'column',
  'button',
  'direction',
  'count',
  'focused',
  'bytes',
  'durationMs',
  'settleMs',
  'settleTimeoutMs',
];

const unknownField = fc
  .string({ minLength: 1, maxLength: 12 })
  .filter((k) => !ACTION_FIELDS.includes(k) && k !== '__proto__');

/** A field set to a value of another JSON type than the field takes. */
const WRONG_TYPED: Args[] = [
  { type: 'text', text: 5 },
  { type: 'text', text: ['a'] },
  { type: 'paste', text: null },
  { type: 'key', key: 13 },
  { type: 'key', key: 'a', modifiers: 'Ctrl' },
  { type: 'mouse', event: 'click', row: '3', column: 1 },
  { type: 'mouse', event: 'click', row: 1.5, column: 1 },
  { type: 'focus', focused: 'yes' },
  { type: 'raw', bytes: 'AAA' },
  { type: 'raw', bytes: [1.5] },
  { type: 'wait', durationMs: '10' },
  { type: 5 },
  { type: null },
];

/** Out of range, missing, inapplicable, unknown names: each rejected before any byte is sent. */
const INVALID_ACTIONS: Args[] = [
  { type: 'text' },
  { type: 'key' },
  { type: 'mouse', event: 'click', row: 1 },
  { type: 'raw' },
  { type: 'focus' },
  { type: 'key', key: 'a', text: 'x' },
  { type: 'text', text: 'x', key: 'a' },
  { type: 'wait', durationMs: 5, text: 'x' },
  { type: 'key', key: 'Enterr' },
  { type: 'key', key: 'F13' },
  { type: 'key', key: '' },
  { type: 'key', key: 'Enter', modifiers: ['Shift'] },
  { type: 'key', key: 'a', modifiers: ['Ctrl', 'Ctrl'] },
  { type: 'key', key: 'a', modifiers: ['Meta'] },
  { type: 'key', key: 'a', modifiers: ['Ctrl', 'Alt', 'Shift', 'Ctrl'] },
  { type: 'mouse', event: 'click', row: 1, column: 1 },
  { type: 'mouse', event: 'wheel', row: 2, column: 2, direction: 'up', count: 3 },
  { type: 'mouse', event: 'click', row: 0, column: 1 },
  { type: 'mouse', event: 'click', row: 1, column: 501 },
  { type: 'mouse', event: 'wheel', row: 1, column: 1, direction: 'up', count: 0 },
  { type: 'mouse', event: 'wheel', row: 1, column: 1, direction: 'up', count: 101 },
  { type: 'mouse', event: 'tap', row: 1, column: 1 },
  { type: 'raw', bytes: [] },
  { type: 'raw', bytes: [256] },
  { type: 'raw', bytes: [-1] },
  { type: 'wait', durationMs: -1 },
  { type: 'wait', durationMs: 60_001 },
  { type: 'wait', durationMs: 0.5 },
  { type: 'txt', text: 'x' },
  { type: 'TEXT', text: 'x' },
];

/** An action (or non-action) that makes its whole batch fail before the first byte. */
export const poisonAction: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...WRONG_TYPED, ...INVALID_ACTIONS),
  fc.tuple(validAction, unknownField, hostileValue).map(([a, k, v]) => ({ ...a, [k]: v })),
  fc
    .tuple(fc.string({ minLength: 1, maxLength: 24 }), fc.constantFrom('text', 'paste'))
    .chain(([text, type]) =>
      fc.nat(text.length).map((at) => ({
        type,
        text: `${text.slice(0, at)}\ud800${text.slice(at)}`,
      })),
    ),
  fc.string({ minLength: 1, maxLength: 8 }).map((k) => ({ type: 'key', key: `~${k}` })),
  fc.constantFrom(null, 'text', 7, [], [{ type: 'text', text: 'x' }]),
);

/** Batch-level faults: the action list itself, or a top-level field, is wrong. */
const poisonTopLevel: fc.Arbitrary<Args> = fc.oneof(
  fc.constant({ actions: [] }),
  fc.constant({ actions: Array.from({ length: 257 }, () => ({ type: 'text', text: 'y' })) }),
  fc.constant({
    actions: [
      { type: 'text', text: 'p'.repeat(600 * 1024) },
      { type: 'paste', text: 'q'.repeat(600 * 1024) },
    ],
  }),
  fc.constant({ actions: [{ type: 'text', text: 'x'.repeat((1 << 20) + 1) }] }),
  hostileValue.filter((v) => !Array.isArray(v)).map((actions) => ({ actions })),
  fc
    .tuple(fc.array(validAction, { minLength: 1, maxLength: 3 }), unknownField, hostileValue)
    .map(([actions, k, v]) => ({ actions, [k]: v })),
  fc
    .tuple(fc.array(validAction, { minLength: 1, maxLength: 3 }), hostileValue)
    .filter(([, v]) => typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 60_000)
    .map(([actions, settleMs]) => ({ actions, settleMs })),
);

/** terminal_input arguments for `sessionId` that must be rejected with nothing sent. */
export function rejectedBatch(sessionId: string): fc.Arbitrary<Args> {
  const mixed = fc
    .tuple(
      fc.array(validAction, { maxLength: 6 }),
      fc.array(poisonAction, { minLength: 1, maxLength: 2 }),
      fc.nat(),
    )
    .map(([valid, poison, at]) => {
      const actions: unknown[] = [...valid];
      for (const p of poison) actions.splice(at % (actions.length + 1), 0, p);
      return { actions };
    });
  return fc
    .oneof({ arbitrary: mixed, weight: 4 }, { arbitrary: poisonTopLevel, weight: 1 })
    .map((args) => ({ sessionId, ...args }));
}

/** Replaces one field (or adds an unknown one, or drops one) with a hostile value. */
export function mutateOnce(args: Args, knownFields: readonly string[]): fc.Arbitrary<Args> {
  const keys = [...new Set([...Object.keys(args), ...knownFields])];
  const setField = fc
    .tuple(keys.length ? fc.constantFrom(...keys) : unknownField, hostileValue)
    .map(([k, v]) => ({ ...args, [k]: v }));
  const addField = fc.tuple(unknownField, hostileValue).map(([k, v]) => ({ ...args, [k]: v }));
  const present = Object.keys(args);
  const dropField = present.length
    ? fc.constantFrom(...present).map((k) => {
        const { [k]: _, ...rest } = args;
        return rest;
      })
    : fc.constant(args);
  const actions = args.actions;
  if (!Array.isArray(actions) || actions.length === 0) {
    return fc.oneof({ arbitrary: setField, weight: 4 }, addField, dropField);
  }
  const mutateAction = fc
    .tuple(fc.nat(actions.length - 1), fc.constantFrom(...ACTION_FIELDS, 'extra'), hostileValue)
    .map(([i, k, v]) => ({
      ...args,
      actions: actions.map((a, j) => (j === i ? { ...(a as Args), [k]: v } : a)),
    }));
  return fc.oneof({ arbitrary: setField, weight: 2 }, addField, dropField, {
    arbitrary: mutateAction,
    weight: 3,
  });
}
