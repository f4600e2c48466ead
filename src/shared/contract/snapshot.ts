/**
 * The snapshot every screen-returning tool answers with: process status and how the screen was
 * observed first, then size, cursor, the rows down to the last with text, styles as a legend plus
 * spans, and what terminal_snapshot adds on request. Optional parts are absent when empty (no
 * styling, mouse reporting off), so a plain screen carries no noise. The field order here is the
 * order session.snapshot() writes. The
 * TypeScript types (`Snapshot`, `Style`, `Color`) are the schema's output, not written again.
 * @see spec/tools.md (Snapshots)
 */
import { z } from 'zod';
import { lazy } from './common.js';

/** The snapshot schemas, built once on first use. */
export const snapshotSchemas = lazy(() => {
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

  const SnapshotSchema = z.strictObject({
    status: z.enum(['running', 'exited']),
    exitCode: z.int().optional(),
    signal: z.string().optional(),
    /**
     * The session's transcript does not hold every line it should (the disk refused writes, a
     * file of it was damaged): what happened. Absent while it does.
     */
    transcriptError: z.string().optional(),
    /** Whether the screen had settled: settle is quiet, input or exited. */
    settled: z.boolean(),
    /**
     * How the settle wait ended; none: no wait ran (an error's latest screen); starting: the
     * program had drawn nothing and was not waiting for input by the deadline.
     */
    settle: z.enum(['quiet', 'input', 'exited', 'timeout', 'starting', 'none']),
    /** With settle none: ms since output last reached the screen. */
    quietMs: z.int().optional(),
    /** The program is blocked reading the terminal: it waits for you (Linux only). */
    waitingForInput: z.boolean().optional(),
    /** The terminal's foreground process, when not the session's own program (Linux only). */
    foreground: z.strictObject({ pid: z.int(), command: z.string() }).optional(),
    title: z.string().optional(),
    cols: z.int(),
    rows: z.int(),
    buffer: z.enum(['normal', 'alternate']),
    cursor: z.strictObject({ row: z.int(), column: z.int(), visible: z.boolean() }),
    /** Only while the program has mouse reporting on. */
    mouse: z
      .strictObject({
        tracking: z.enum(['x10', 'normal', 'button', 'any']),
        encoding: z.enum(['default', 'utf8', 'sgr', 'urxvt', 'sgr-pixels']),
      })
      .optional(),
    /** Rows from the top down to the last row with text or the cursor's row; the rest are blank. */
    screen: z.array(z.string()),
    /** The styles the spans use; a span names one by index. Absent when nothing is styled. */
    styles: z.array(StyleSchema).optional(),
    /** [row, startColumn, endColumn, style]: 1-based inclusive columns, style indexes styles. */
    spans: z.array(z.tuple([z.int(), z.int(), z.int(), z.int()])).optional(),
    /** Lines that have ever scrolled into history; pass as historySince to read on. */
    historyTotal: z.int(),
    scrollback: z.strictObject({ lines: z.array(z.string()), availableLines: z.int() }).optional(),
    /** Lines after history line `since`; missedLines were dropped unread; nextSince: more remain. */
    history: z
      .strictObject({
        since: z.int(),
        lines: z.array(z.string()),
        total: z.int(),
        missedLines: z.int(),
        /** As the snapshot's transcriptError: the disk refused writes, a file was damaged. */
        transcriptError: z.string().optional(),
        nextSince: z.int().optional(),
      })
      .optional(),
    region: z
      .strictObject({
        row: z.int(),
        column: z.int(),
        rows: z.int(),
        cols: z.int(),
        lines: z.array(z.string()),
      })
      .optional(),
    /** line in the one numbering; row only for a match on the screen. */
    matches: z
      .array(
        z.strictObject({
          line: z.int(),
          row: z.int().optional(),
          column: z.int(),
          endColumn: z.int(),
          text: z.string(),
        }),
      )
      .optional(),
    /** There are more matches than the ones returned. */
    matchesTruncated: z.literal(true).optional(),
  });

  return { ColorSchema, StyleSchema, SnapshotSchema };
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
