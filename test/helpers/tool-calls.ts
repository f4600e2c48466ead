/**
 * Calling the six tools through an SDK Client, over any transport, and unwrapping their results:
 * the structured content, the readable text and isError. Types of the wire contract come from
 * the source, never written a second time.
 */
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SessionInfo, Snapshot } from '../../src/session/session.js';
import { sleep } from './wait.js';

export type { SessionInfo, Snapshot };

/** The six tools, in the order the server lists them. */
export const TOOL_NAMES = [
  'terminal_start',
  'terminal_input',
  'terminal_snapshot',
  'terminal_resize',
  'terminal_list',
  'terminal_close',
];

/** The structured content of any tool's result, success or failure. */
export interface Structured {
  sessionId?: string;
  watchers?: number;
  personTyped?: boolean;
  snapshot?: Snapshot;
  actionsCompleted?: number;
  inputSent?: boolean;
  failedActionIndex?: number;
  waits?: { actionIndex: number; reason: string; elapsedMs: number }[];
  timedOut?: boolean;
  inputRequired?: boolean;
  closed?: boolean;
  sessions?: SessionInfo[];
  error?: { code: string; message: string; details: Record<string, unknown> };
}

export interface ToolReply {
  readonly result: CallToolResult;
  readonly data: Structured;
  /** Every text content item, joined by newlines. */
  readonly text: string;
  readonly isError: boolean;
}

/** Timing of the snapshots waitFor polls with: settled screens (the default)… */
export const SETTLED_POLL = { settleMs: 50, settleTimeoutMs: 500 };
/** …or whatever is on the screen right now, for screens that never go quiet. */
export const BUSY_POLL = { settleMs: 0 };

export interface ToolCalls {
  call(name: string, args?: Record<string, unknown>): Promise<ToolReply>;
  /** terminal_start that must succeed; returns the session id and first snapshot. */
  start(args: Record<string, unknown>): Promise<{ id: string; snapshot: Snapshot }>;
  input(
    sessionId: string,
    actions: Record<string, unknown>[],
    extra?: Record<string, unknown>,
  ): Promise<ToolReply>;
  /** terminal_snapshot that must succeed. */
  snapshot(sessionId: string, extra?: Record<string, unknown>): Promise<Snapshot>;
  /** Polls terminal_snapshot (with `timing`, SETTLED_POLL unless told) until `predicate` holds. */
  waitFor(
    sessionId: string,
    predicate: (s: Snapshot) => boolean,
    timeoutMs?: number,
    timing?: Record<string, number>,
  ): Promise<Snapshot>;
}

/** The parts of a tool result a test reads. */
export function toToolReply(result: CallToolResult): ToolReply {
  return {
    result,
    data: (result.structuredContent ?? {}) as Structured,
    text: result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n'),
    isError: result.isError === true,
  };
}

/** Tool calls through `client`; each call may take up to `timeoutMs` (the SDK's own is 60 s). */
export function toolCalls(client: Client, timeoutMs = 120_000): ToolCalls {
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<ToolReply> => {
    const result = await client.callTool({ name, arguments: args }, undefined, {
      timeout: timeoutMs,
    });
    return toToolReply(result as CallToolResult);
  };
  const snapshot = async (sessionId: string, extra: Record<string, unknown> = {}) => {
    const reply = await call('terminal_snapshot', { sessionId, ...extra });
    if (reply.isError) throw new Error(`terminal_snapshot failed: ${reply.text}`);
    return reply.data.snapshot as Snapshot;
  };
  return {
    call,
    snapshot,
    async start(args) {
      const reply = await call('terminal_start', args);
      if (reply.isError) throw new Error(`terminal_start failed: ${reply.text}`);
      return { id: reply.data.sessionId as string, snapshot: reply.data.snapshot as Snapshot };
    },
    input(sessionId, actions, extra = {}) {
      return call('terminal_input', { sessionId, actions, ...extra });
    },
    async waitFor(sessionId, predicate, waitMs = 10_000, timing = SETTLED_POLL) {
      const deadline = Date.now() + waitMs;
      let last: Snapshot | undefined;
      while (Date.now() < deadline) {
        last = await snapshot(sessionId, timing);
        if (predicate(last)) return last;
        await sleep(20);
      }
      throw new Error(
        `condition not met within ${waitMs} ms; last screen:\n${last?.screen.join('\n')}`,
      );
    },
  };
}

/**
 * Asserts that `reply` is a failure with `code` in the documented shape (spec/errors.md): isError,
 * structuredContent.error {code, message, details}, text starting with `CODE: message`.
 */
export function assertToolError(reply: ToolReply, code: string): NonNullable<Structured['error']> {
  assert.equal(reply.isError, true, `expected ${code}, got a success: ${reply.text.slice(0, 300)}`);
  const error = reply.data.error;
  assert.ok(error, 'structuredContent.error is present');
  assert.equal(error.code, code, reply.text.slice(0, 300));
  assert.equal(typeof error.message, 'string');
  assert.ok(error.message.length > 0, 'the message says something');
  assert.equal(typeof error.details, 'object');
  assert.ok(
    reply.text.startsWith(`${code}: ${error.message}`),
    `the text starts with "${code}: " and the message: ${reply.text.slice(0, 300)}`,
  );
  return error;
}

/** The screen as one string, rows joined by newlines, trailing blank rows dropped. */
export function screenText(snapshot: Snapshot): string {
  return snapshot.screen.join('\n').replace(/\n+$/, '');
}
