/**
 * The snapshot every screen-returning tool answers with: screen rows, cursor, styles as a legend
 * plus spans, mode and process status, and what terminal_snapshot adds on request. The
 * TypeScript types (`Snapshot`, `Style`, `Color`) are the schema's output, not written again.
 * @see spec/tools.md (Snapshots)
 */
import { z } from 'zod';
import { commonSchemas, lazy } from './common.js';

/** The snapshot schemas, built once on first use. */
export const snapshotSchemas = lazy(() => {
  const { errorField } = commonSchemas();

  const ColorSchema = z.union([z.int().min(0).max(255), z.string().regex(/^#[0-9a-f]{6}$/)]);

  const StyleSchema = z.strictObject({
    fg: ColorSchema.optional(),
    bg: ColorSchema.optional(),
    bold: z.literal(true).optional(),
    dim: z.literal(true).optional(),
    italic: z.literal(true).optional(),
    underline: z.literal(true).optional(),
    blink: z.literal(true).optional(),
    inverse: z.literal(true).optional(),
    invisible: z.literal(true).optional(),
    strikethrough: z.literal(true).optional(),
    overline: z.literal(true).optional(),
  });

  const SnapshotSchema = z
    .strictObject({
      status: z.enum(['running', 'exited']),
      exitCode: z.int().optional(),
      signal: z.string().optional(),
      cols: z.int(),
      rows: z.int(),
      buffer: z.enum(['normal', 'alternate']),
      screen: z.array(z.string()).describe('Exactly `rows` strings, one per screen row.'),
      cursor: z.strictObject({ row: z.int(), column: z.int(), visible: z.boolean() }),
      styles: z.array(StyleSchema).describe('The styles the spans use; a span names one by index.'),
      spans: z
        .array(z.tuple([z.int(), z.int(), z.int(), z.int()]))
        .describe(
          '[row, startColumn, endColumn, style]: 1-based inclusive columns, style indexes styles; cells without a span have the default style.',
        ),
      mouse: z.strictObject({
        tracking: z.enum(['none', 'x10', 'normal', 'button', 'any']),
        encoding: z.enum(['default', 'utf8', 'sgr', 'urxvt', 'sgr-pixels']),
      }),
      settled: z.boolean(),
      settle: z
        .enum(['quiet', 'input', 'exited', 'timeout', 'none'])
        .optional()
        .describe("How the settle wait ended; none: no wait ran (an error's latest screen)."),
      quietMs: z
        .int()
        .optional()
        .describe('With settle none: ms since output last reached the screen.'),
      waitingForInput: z
        .boolean()
        .optional()
        .describe('The program is blocked reading the terminal: it waits for you (Linux only).'),
      title: z.string().optional(),
      historyTotal: z
        .int()
        .describe('Lines that have ever scrolled into history; pass as historySince to read on.'),
      scrollback: z
        .strictObject({ lines: z.array(z.string()), availableLines: z.int() })
        .optional(),
      history: z
        .strictObject({
          since: z.int(),
          lines: z.array(z.string()),
          total: z.int(),
          missedLines: z.int(),
          nextSince: z.int().optional(),
        })
        .optional()
        .describe(
          'Lines after history count `since` (when requested); missedLines were dropped before they were read; nextSince is set when more remain.',
        ),
      region: z
        .strictObject({
          row: z.int(),
          column: z.int(),
          rows: z.int(),
          cols: z.int(),
          lines: z.array(z.string()),
        })
        .optional(),
      matches: z
        .array(
          z.strictObject({
            row: z.int(),
            column: z.int(),
            endColumn: z.int(),
            text: z.string(),
          }),
        )
        .optional(),
    })
    .describe('The terminal as a person would see it.');

  /** The output of the tools that return a session's screen and nothing else. */
  const ObservationOutputSchema = z.strictObject({
    sessionId: z.string().optional(),
    snapshot: SnapshotSchema.optional(),
    ...errorField,
  });

  return { ColorSchema, StyleSchema, SnapshotSchema, ObservationOutputSchema };
});

type Schemas = ReturnType<typeof snapshotSchemas>;

/** The terminal as a person would see it, as tools return it. */
export type Snapshot = z.output<Schemas['SnapshotSchema']>;
/** How a snapshot's screen was observed (its `settle` field). */
export type SettleLabel = NonNullable<Snapshot['settle']>;
/** One entry of a snapshot's style legend. */
export type Style = z.output<Schemas['StyleSchema']>;
/** A colour: a palette index (0-255) or an RGB value "#rrggbb". */
export type Color = z.output<Schemas['ColorSchema']>;
