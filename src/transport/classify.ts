/**
 * Judges one line read from the client (JSON-RPC 2.0, as MCP uses it) before the SDK sees it:
 * a message to pass on (reduced to the members JSON-RPC defines), an error reply to send at
 * once, or nothing (a malformed notification or response, which JSON-RPC never answers).
 * Pure. The rules are listed in spec/guarantees.md (Protocol); the codes are JSON-RPC's.
 */
import {
  ErrorCode,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { makeTextSafe } from '../screen/text-safety.js';

export type LineVerdict =
  | { readonly kind: 'request'; readonly message: JSONRPCMessage; readonly id: RequestId }
  | { readonly kind: 'notification' | 'response'; readonly message: JSONRPCMessage }
  | { readonly kind: 'reply'; readonly reply: JSONRPCMessage }
  | { readonly kind: 'ignore'; readonly reason: string };

type Json = Record<string, unknown>;

/** Whether `value` is an id JSON-RPC lets a request carry (MCP: a string or an integer). */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

/** An id as it may appear inside a message text: safe to show, and short. */
export function describeId(id: RequestId): string {
  const text = typeof id === 'string' ? JSON.stringify(id) : String(id);
  return makeTextSafe(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

export function errorReply(id: RequestId | null, code: number, message: string): JSONRPCMessage {
  // The SDK's type has no null id, but JSON-RPC 2.0 requires one when the id is unknown.
  return { jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage;
}

/** Classifies one complete line (without its newline). */
export function classifyLine(text: string): LineVerdict {
  if (text.trim() === '') return { kind: 'ignore', reason: 'an empty line' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return reply(null, ErrorCode.ParseError, 'parse error: the line is not valid JSON');
  }
  if (Array.isArray(value)) {
    return reply(null, ErrorCode.InvalidRequest, 'invalid request: batches are not supported');
  }
  if (value === null || typeof value !== 'object') {
    return reply(null, ErrorCode.InvalidRequest, 'invalid request: a message is a JSON object');
  }
  const message = value as Json;
  if (!('method' in message) && ('result' in message || 'error' in message)) {
    return classifyResponse(message);
  }
  if ('id' in message) return classifyRequest(message);
  if (!('method' in message)) {
    return reply(null, ErrorCode.InvalidRequest, 'invalid request: a message needs a method');
  }
  return classifyNotification(message);
}

function classifyRequest(message: Json): LineVerdict {
  const { id } = message;
  if (!isRequestId(id)) {
    return reply(
      null,
      ErrorCode.InvalidRequest,
      'invalid request: id must be a string or an integer',
    );
  }
  const problem = envelopeProblem(message);
  if (problem) return reply(id, ErrorCode.InvalidRequest, `invalid request: ${problem}`);
  const paramsProblem = paramsShapeProblem(message.params);
  if (paramsProblem) return reply(id, ErrorCode.InvalidParams, `invalid params: ${paramsProblem}`);
  const request = pick(message, ['jsonrpc', 'id', 'method', 'params']);
  if (!JSONRPCMessageSchema.safeParse(request).success) {
    return reply(id, ErrorCode.InvalidRequest, 'invalid request: not a JSON-RPC 2.0 request');
  }
  return { kind: 'request', message: request as JSONRPCMessage, id };
}

function classifyNotification(message: Json): LineVerdict {
  const problem = envelopeProblem(message) ?? paramsShapeProblem(message.params);
  const notification = pick(message, ['jsonrpc', 'method', 'params']);
  if (problem || !JSONRPCMessageSchema.safeParse(notification).success) {
    return { kind: 'ignore', reason: `a malformed notification (${problem ?? 'schema'})` };
  }
  return { kind: 'notification', message: notification as JSONRPCMessage };
}

function classifyResponse(message: Json): LineVerdict {
  const response = pick(message, ['jsonrpc', 'id', 'result', 'error']);
  if (!JSONRPCMessageSchema.safeParse(response).success) {
    return { kind: 'ignore', reason: 'a malformed response' };
  }
  return { kind: 'response', message: response as JSONRPCMessage };
}

function envelopeProblem(message: Json): string | undefined {
  if (message.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if (typeof message.method !== 'string') return 'method must be a string';
  const { params } = message;
  if (params !== undefined && (params === null || typeof params !== 'object')) {
    return 'params must be an object';
  }
  return undefined;
}

/** MCP's shape of params (JSON-RPC also allows an array) and of its `_meta`. */
function paramsShapeProblem(params: unknown): string | undefined {
  if (params === undefined) return undefined;
  if (Array.isArray(params)) return 'params must be an object, not an array';
  const meta = (params as Json)._meta;
  if (meta === undefined) return undefined;
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) {
    return 'params._meta must be an object';
  }
  const token = (meta as Json).progressToken;
  if (token !== undefined && !isRequestId(token)) {
    return 'params._meta.progressToken must be a string or an integer';
  }
  return undefined;
}

function pick(message: Json, keys: readonly string[]): Json {
  const out: Json = {};
  for (const key of keys) if (message[key] !== undefined) out[key] = message[key];
  return out;
}

function reply(id: RequestId | null, code: number, message: string): LineVerdict {
  return { kind: 'reply', reply: errorReply(id, code, message) };
}

/** `"id": <string or integer>` as a top-level member: first, or after jsonrpc/method strings. */
const HEAD_ID =
  /^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"[^"\\]{0,200}"\s*,)*\s*"id"\s*:\s*(-?\d{1,16}|"[^"\\]{0,200}")\s*[,}]/;
/** The last member before the closing brace: top level in any well-formed object. */
const TAIL_ID = /[,{]\s*"id"\s*:\s*(-?\d{1,16}|"[^"\\]{0,200}")\s*\}\s*$/;
const HEAD_NOTIFICATION =
  /^\s*\{(?:\s*"jsonrpc"\s*:\s*"[^"\\]{0,200}"\s*,)?\s*"method"\s*:\s*"notifications\//;

/**
 * The reply to a line that was discarded for its length: the request's id when its first or
 * last bytes show it (JSON.stringify puts it first, the SDK's client last), else null; nothing
 * for what is recognisably a notification.
 */
export function classifyOverlong(head: string, tail: string, limitBytes: number): LineVerdict {
  const id = recoverId(HEAD_ID.exec(head)?.[1]) ?? recoverId(TAIL_ID.exec(tail)?.[1]);
  if (id === undefined && HEAD_NOTIFICATION.test(head)) {
    return { kind: 'ignore', reason: 'an over-long notification' };
  }
  const limit = `${limitBytes / (1024 * 1024)} MiB`;
  return reply(
    id ?? null,
    ErrorCode.InvalidRequest,
    `invalid request: the message is longer than the ${limit} line limit and was discarded`,
  );
}

function recoverId(token: string | undefined): RequestId | undefined {
  if (token === undefined) return undefined;
  const value: unknown = JSON.parse(token);
  return isRequestId(value) ? value : undefined;
}
