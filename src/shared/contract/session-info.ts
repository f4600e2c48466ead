/**
 * What terminal_list reports for each retained session. `SessionInfo` is the schema's output type.
 * @see spec/tools.md (terminal_list)
 */
import { z } from 'zod';
import { lazy } from './common.js';

/** The session info schema, built once on first use. */
export const sessionInfoSchema = lazy(() =>
  z.strictObject({
    sessionId: z.string(),
    command: z.string().nullable(),
    cwd: z.string(),
    cols: z.int(),
    rows: z.int(),
    status: z.enum(['running', 'exited']),
    exitCode: z.int().optional(),
    signal: z.string().optional(),
    pid: z.int(),
    /** The terminal's foreground process, when not the session's own program (Linux only). */
    foreground: z.strictObject({ pid: z.int(), command: z.string() }).optional(),
    startedAt: z.string(),
    recording: z.string().optional(),
    recordingError: z.string().optional(),
    /** As the snapshot's: the transcript does not hold every line it should, and why. */
    transcriptError: z.string().optional(),
    watchers: z.int().optional(),
    personTyped: z.boolean().optional(),
    attach: z.string().optional(),
    /** The MCP client that started the session: the name it gave in initialize. */
    client: z.string().optional(),
  }),
);

/** One retained session as terminal_list reports it. */
export type SessionInfo = z.output<ReturnType<typeof sessionInfoSchema>>;
