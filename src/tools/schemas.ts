/**
 * The zod schemas of the tool surface: strict inputs (an unknown field is an error, never
 * dropped) and the outputs every result, success or error, conforms to. spec/tools.schema.json
 * is generated from these (`npm run spec`). Built on first use, not at start-up: the server lists
 * its tools from the generated JSON and needs the schemas only to validate a call.
 */
import { z } from 'zod';
import { LIMITS } from '../config.js';
import { ERROR_CODES } from '../errors.js';
import { ACTION_TYPES, MOUSE_EVENTS } from '../input/actions.js';
import { MODIFIERS } from '../input/keys.js';

function buildSchemas() {
  const timingMs = z.int().min(0).max(LIMITS.maxTimingMs);

  const settleFields = {
    settleMs: timingMs
      .optional()
      .describe(
        'Quiet interval: return once the screen has not changed for this many ms (default 250). 0 captures as soon as the output received so far is parsed.',
      ),
    settleTimeoutMs: z
      .int()
      .min(1)
      .max(LIMITS.maxTimingMs)
      .optional()
      .describe(
        'Deadline for settling, in ms (default 1000, or twice settleMs when that is larger). At the deadline the latest screen is returned with settled:false.',
      ),
  };

  const SessionIdSchema = z
    .string()
    .min(1)
    .max(64)
    .describe('Session id returned by terminal_start, e.g. "t1".');

  const noNul = (what: string) =>
    z.string().refine((s) => !s.includes('\0'), { message: `${what} must not contain NUL` });

  const StartInputSchema = z.strictObject({
    command: noNul('command')
      .min(1)
      .max(LIMITS.maxPayloadBytes)
      .optional()
      .describe(
        'Shell command line to run, e.g. "npm init" or "python3". Omit to start an interactive shell.',
      ),
    cols: z
      .int()
      .min(LIMITS.minCols)
      .max(LIMITS.maxCols)
      .optional()
      .describe('Terminal width in columns (2-500, default 120).'),
    rows: z
      .int()
      .min(LIMITS.minRows)
      .max(LIMITS.maxRows)
      .optional()
      .describe('Terminal height in rows (1-200, default 40).'),
    cwd: noNul('cwd').min(1).optional().describe("Working directory (default: the server's)."),
    env: z
      .record(
        z
          .string()
          .regex(/^[^=\0]+$/, 'an environment variable name must be non-empty without = or NUL'),
        noNul('an environment value').nullable(),
      )
      .optional()
      .describe(
        'Environment overrides on top of the inherited environment; null removes a variable. TERM is always xterm-256color.',
      ),
    shell: noNul('shell')
      .min(1)
      .optional()
      .describe('Shell that runs the command (default: $SHELL, then /bin/sh).'),
    login: z
      .boolean()
      .optional()
      .describe('Run the shell as a login shell with -l (default true).'),
    waitForExit: z
      .boolean()
      .optional()
      .describe(
        'Run to completion: wait until the program exits (up to timeoutMs) instead of until the screen settles.',
      ),
    timeoutMs: z
      .int()
      .min(1)
      .max(LIMITS.maxWaitMs)
      .optional()
      .describe('With waitForExit: longest wait, in ms (default 60000); then timedOut:true.'),
    autoClose: z
      .boolean()
      .optional()
      .describe(
        'With waitForExit: close the session (ending anything still running) after the result.',
      ),
    scrollbackLines: z
      .int()
      .min(0)
      .max(LIMITS.maxScrollbackRequest)
      .optional()
      .describe('Also return up to this many lines of history (useful with waitForExit).'),
    record: z
      .boolean()
      .optional()
      .describe(
        'Record the session as an asciicast v2 file (asciinema play), readable only by the user; it holds all typed input, passwords included. Returns its path as recording, or recordingError.',
      ),
    ...settleFields,
  });

  const ActionSchema = z
    .strictObject({
      type: z
        .enum(ACTION_TYPES)
        .describe(
          'text: type exact Unicode. paste: paste text (bracketed when the program asks). key: press a key. mouse: click, press, release or wheel at a cell. focus: report focus in/out. raw: send bytes. wait: pause durationMs, or wait for the screen to settle.',
        ),
      text: z.string().max(LIMITS.maxPayloadBytes).optional().describe('text, paste: the text.'),
      key: z
        .string()
        .min(1)
        .max(32)
        .optional()
        .describe(
          'key: Enter, Tab, Backspace, Escape, Space, Up, Down, Left, Right, Home, End, PageUp, PageDown, Insert, Delete, F1-F12, Keypad0-9, KeypadEnter…, or one printable ASCII character such as "a" or "/".',
        ),
      modifiers: z
        .array(z.enum(MODIFIERS))
        .max(3)
        .optional()
        .describe('key, mouse: held modifiers, e.g. ["Ctrl"] for Ctrl+C.'),
      event: z
        .enum(MOUSE_EVENTS)
        .optional()
        .describe('mouse: click (press then release), press, release or wheel.'),
      row: z
        .int()
        .min(1)
        .max(LIMITS.maxRows)
        .optional()
        .describe('mouse: 1-based row of the cell.'),
      column: z
        .int()
        .min(1)
        .max(LIMITS.maxCols)
        .optional()
        .describe('mouse: 1-based column of the cell.'),
      button: z
        .enum(['left', 'middle', 'right'])
        .optional()
        .describe('mouse: button for click/press/release (default left).'),
      direction: z
        .enum(['up', 'down', 'left', 'right'])
        .optional()
        .describe('mouse wheel: direction.'),
      count: z
        .int()
        .min(1)
        .max(100)
        .optional()
        .describe('mouse wheel: number of steps (default 1).'),
      focused: z.boolean().optional().describe('focus: true for focus in, false for focus out.'),
      bytes: z
        .array(z.int().min(0).max(255))
        .min(1)
        .max(LIMITS.maxPayloadBytes)
        .optional()
        .describe('raw: bytes to send as they are, e.g. [27, 91, 65].'),
      durationMs: timingMs.optional().describe('wait: pause this long, in ms.'),
      pattern: z
        .string()
        .min(1)
        .max(4096)
        .optional()
        .describe(
          'wait: until this regular expression matches a line of the screen (or of output that scrolled past since the wait began).',
        ),
      ignoreCase: z.boolean().optional().describe('wait with pattern: match ignoring case.'),
      gone: z
        .boolean()
        .optional()
        .describe('wait with pattern: wait until it no longer matches the screen instead.'),
      exit: z.literal(true).optional().describe('wait: until the program exits.'),
      timeoutMs: z
        .int()
        .min(1)
        .max(LIMITS.maxWaitMs)
        .optional()
        .describe(
          'wait with pattern or exit: give up after this long (default 30000) with WAIT_TIMEOUT.',
        ),
      ...settleFields,
    })
    .describe('One input action: set "type" and the fields that type takes.');

  const InputInputSchema = z.strictObject({
    sessionId: SessionIdSchema,
    actions: z
      .array(ActionSchema)
      .min(1)
      .max(LIMITS.maxActions)
      .describe(
        'Actions run in order (1-256; at most 1 MiB of text, paste and raw bytes together).',
      ),
    ...settleFields,
  });

  const RegionSchema = z
    .strictObject({
      row: z.int().min(1).max(LIMITS.maxRows).describe('First row, 1-based.'),
      column: z.int().min(1).max(LIMITS.maxCols).describe('First column, 1-based.'),
      rows: z.int().min(1).max(LIMITS.maxRows).describe('Number of rows.'),
      cols: z.int().min(1).max(LIMITS.maxCols).describe('Number of columns.'),
    })
    .describe(
      'A rectangle of the screen, returned as snapshot.region (wide characters count two columns).',
    );

  const FindSchema = z
    .strictObject({
      text: z.string().min(1).max(4096).optional().describe('Literal text to find.'),
      pattern: z.string().min(1).max(4096).optional().describe('Or a regular expression.'),
      ignoreCase: z.boolean().optional(),
    })
    .describe('Find text on the screen: snapshot.matches lists each match with row and column.');

  const SnapshotInputSchema = z.strictObject({
    sessionId: SessionIdSchema,
    scrollbackLines: z
      .int()
      .min(0)
      .max(LIMITS.maxScrollbackRequest)
      .optional()
      .describe(
        'Also return up to this many lines of history above the screen (0-2000, default 0).',
      ),
    historySince: z
      .int()
      .min(0)
      .optional()
      .describe(
        'Return the lines that scrolled into history after this count (snapshot.historyTotal of an earlier snapshot; 0 for all), at most 2000: read a long log once, line by line.',
      ),
    region: RegionSchema.optional(),
    find: FindSchema.optional(),
    ...settleFields,
  });

  const ResizeInputSchema = z.strictObject({
    sessionId: SessionIdSchema,
    cols: z.int().min(LIMITS.minCols).max(LIMITS.maxCols).describe('New width (2-500).'),
    rows: z.int().min(LIMITS.minRows).max(LIMITS.maxRows).describe('New height (1-200).'),
    ...settleFields,
  });

  const ListInputSchema = z.strictObject({});

  const CloseInputSchema = z.strictObject({ sessionId: SessionIdSchema });

  // Outputs

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

  const ErrorSchema = z.strictObject({
    code: z.enum(ERROR_CODES),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
  });

  const errorField = {
    error: ErrorSchema.optional().describe('Present only when the call failed.'),
  };

  const ObservationOutputSchema = z.strictObject({
    sessionId: z.string().optional(),
    snapshot: SnapshotSchema.optional(),
    ...errorField,
  });

  const StartOutputSchema = z.strictObject({
    sessionId: z.string().optional(),
    snapshot: SnapshotSchema.optional(),
    timedOut: z
      .boolean()
      .optional()
      .describe('waitForExit: the program was still running at timeoutMs.'),
    closed: z.boolean().optional().describe('autoClose: the session was closed after this result.'),
    recording: z
      .string()
      .optional()
      .describe('Absolute path of the asciicast recording; its file is open and being written.'),
    recordingError: z
      .string()
      .optional()
      .describe(
        'Why the session is not recorded although recording was asked for; it runs unrecorded.',
      ),
    ...errorField,
  });

  const WaitReportSchema = z.strictObject({
    actionIndex: z.int(),
    reason: z.string(),
    elapsedMs: z.int(),
    match: z
      .strictObject({ text: z.string(), row: z.int().optional(), column: z.int().optional() })
      .optional(),
  });

  const InputOutputSchema = z.strictObject({
    sessionId: z.string().optional(),
    actionsCompleted: z.int().optional(),
    inputSent: z.boolean().optional(),
    failedActionIndex: z.int().optional(),
    waits: z
      .array(WaitReportSchema)
      .optional()
      .describe(
        'How each wait for a condition ended: quiet/input/exited/timeout (settle) or matched/gone/exited.',
      ),
    snapshot: SnapshotSchema.optional(),
    ...errorField,
  });

  const SessionInfoSchema = z.strictObject({
    sessionId: z.string(),
    command: z.string().nullable(),
    cwd: z.string(),
    cols: z.int(),
    rows: z.int(),
    status: z.enum(['running', 'exited']),
    exitCode: z.int().optional(),
    signal: z.string().optional(),
    pid: z.int(),
    startedAt: z.string(),
    recording: z.string().optional(),
    recordingError: z.string().optional(),
  });

  const ListOutputSchema = z.strictObject({
    sessions: z.array(SessionInfoSchema).optional(),
    ...errorField,
  });

  const CloseOutputSchema = z.strictObject({
    sessionId: z.string().optional(),
    closed: z.boolean().optional(),
    ...errorField,
  });
  return {
    SessionIdSchema,
    StartInputSchema,
    ActionSchema,
    InputInputSchema,
    SnapshotInputSchema,
    ResizeInputSchema,
    ListInputSchema,
    CloseInputSchema,
    StyleSchema,
    SnapshotSchema,
    ErrorSchema,
    ObservationOutputSchema,
    StartOutputSchema,
    InputOutputSchema,
    SessionInfoSchema,
    ListOutputSchema,
    CloseOutputSchema,
  };
}

let built: ReturnType<typeof buildSchemas> | undefined;

/** The schemas, built once on first use. */
export function schemas(): ReturnType<typeof buildSchemas> {
  built ??= buildSchemas();
  return built;
}
