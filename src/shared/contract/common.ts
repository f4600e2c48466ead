/**
 * The zod pieces several tools share: session id, timing and settle fields, the error field of
 * every result. Schemas are built on first use (`lazy`), not at start-up: the server lists its
 * tools from the generated spec/tools.schema.json and needs zod only to validate a call.
 */
import { z } from 'zod';
import { LIMITS } from '../config.js';
import { ERROR_CODES } from '../errors.js';

/** A value built by `build` on the first call and returned by every call after it. */
export function lazy<T>(build: () => T): () => T {
  let built: { readonly value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
}

/** The shared schemas, built once on first use. */
export const commonSchemas = lazy(() => {
  const timingMs = z.int().min(0).max(LIMITS.maxTimingMs);

  /** The settle fields of every call that returns a screen (a settle wait action re-describes them). */
  const settleFields = {
    settleMs: timingMs.optional().describe('Quiet ms to wait for (default 250).'),
    settleTimeoutMs: z
      .int()
      .min(1)
      .max(LIMITS.maxTimingMs)
      .optional()
      .describe('Deadline; then settled:false.'),
  };

  const SessionIdSchema = z.string().min(1).max(64).describe('From terminal_start.');

  const ErrorSchema = z.strictObject({
    code: z.enum(ERROR_CODES),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
  });

  /** The last field of every output schema. */
  const errorField = {
    error: ErrorSchema.optional().describe('Present only when the call failed.'),
  };

  return { timingMs, settleFields, SessionIdSchema, ErrorSchema, errorField };
});
