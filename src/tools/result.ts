/**
 * Shapes tool results: success as structured content plus readable text; failure as an isError
 * result whose structured content still matches the tool's output schema (`error` plus the
 * error's partial fields: sessionId, progress, latest snapshot), so SDK clients read the code
 * without the call throwing. Guards the serialized size: a result over the limit becomes
 * RESULT_TOO_LARGE, never a dropped connection.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { formatSnapshot } from '../render/format.js';
import { makeTextSafe, truncateCodeUnits } from '../screen/text-safety.js';
import type { Snapshot } from '../session/session.js';
import { RESULT_ORDER } from '../shared/contract/observation-result.js';
import { TerminalError } from '../shared/errors.js';

export interface ToolOutcome {
  readonly structured: Record<string, unknown>;
  readonly text: string;
}

export function successResult(outcome: ToolOutcome): CallToolResult {
  return {
    content: [{ type: 'text', text: outcome.text }],
    structuredContent: inResultOrder(outcome.structured),
  };
}

/**
 * The fields in the order a reader wants them (RESULT_ORDER): identity and failure first, the
 * snapshot last, so the small facts are not buried after a screenful of rows.
 */
function inResultOrder(fields: Record<string, unknown>): Record<string, unknown> {
  const rank = (key: string) => {
    const i = RESULT_ORDER.indexOf(key);
    return i === -1 ? RESULT_ORDER.length - 1.5 : i;
  };
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(fields).sort((a, b) => rank(a) - rank(b))) out[key] = fields[key];
  return out;
}

export function errorResult(error: TerminalError): CallToolResult {
  // Messages, details and a rejected sessionId may quote what the client sent: shown safely.
  const message = makeTextSafe(error.message);
  const partial = safeStrings(error.partial);
  const lines = [`${error.code}: ${message}`];
  const progress = describeProgress(partial);
  if (progress) lines.push(progress);
  if (partial.snapshot !== undefined) {
    const id = typeof partial.sessionId === 'string' ? partial.sessionId : '?';
    lines.push(`latest screen:\n${formatSnapshot(id, partial.snapshot as Snapshot)}`);
  }
  return {
    isError: true,
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: inResultOrder({
      ...partial,
      error: { code: error.code, message, details: safeStrings(error.details) },
    }),
  };
}

/** A copy of `value` with every string made safe to show; the snapshot already is. */
function safeStrings<T>(value: T): T {
  if (typeof value === 'string') return makeTextSafe(value) as T;
  if (Array.isArray(value)) return value.map(safeStrings) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = key === 'snapshot' ? item : safeStrings(item);
  }
  return out as T;
}

function describeProgress(partial: Record<string, unknown>): string {
  if (partial.actionsCompleted === undefined) return '';
  const parts = [
    `actionsCompleted: ${partial.actionsCompleted}`,
    `inputSent: ${partial.inputSent}`,
  ];
  if (partial.failedActionIndex !== undefined) {
    parts.push(`failedActionIndex: ${partial.failedActionIndex}`);
  }
  return parts.join(', ');
}

/** Fields kept when a result is replaced by RESULT_TOO_LARGE: identity and progress. */
const KEPT_ON_OVERSIZE = ['sessionId', 'actionsCompleted', 'inputSent', 'failedActionIndex'];

export function guardResultSize(result: CallToolResult, limitBytes: number): CallToolResult {
  const resultBytes = Buffer.byteLength(JSON.stringify(result), 'utf8');
  if (resultBytes <= limitBytes) return result;
  const structured = (result.structuredContent ?? {}) as Record<string, unknown>;
  const partial: Record<string, unknown> = {};
  for (const key of KEPT_ON_OVERSIZE) {
    if (structured[key] !== undefined) partial[key] = structured[key];
  }
  const details: Record<string, unknown> = { resultBytes, limitBytes };
  const original = structured.error as { code: string; message: string } | undefined;
  if (original) {
    details.originalError = {
      code: original.code,
      message: truncateCodeUnits(original.message, 1024),
      ...(original.message.length > 1024 ? { messageTruncated: true } : {}),
    };
  }
  return errorResult(
    new TerminalError(
      'RESULT_TOO_LARGE',
      `the result would be ${resultBytes} bytes, over the ${limitBytes}-byte limit; request fewer scrollbackLines or make the terminal smaller with terminal_resize, then call terminal_snapshot`,
      details,
      { partial },
    ),
  );
}
