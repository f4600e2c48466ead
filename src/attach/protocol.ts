/**
 * The attach protocol: what `agent-tty attach` and a server say over the server's Unix socket.
 * One JSON object per line, both ways. The server says hello (and how the client shows which
 * process it is); the client asks once (`list` or `attach`), then, attached,
 * sends what the person types and its terminal's size; the server sends frames that draw the
 * session's screen, notices, and why the attachment ended. Pure: parsing and encoding only.
 * @see spec/attach.md
 */
import { z } from 'zod';

/** Longest line a server reads from a client (a paste goes in pieces below it). */
export const MAX_CLIENT_LINE_BYTES = 256 * 1024;
/** Longest line a client reads from a server (a frame of the largest screen fits many times). */
export const MAX_SERVER_LINE_BYTES = 64 * 1024 * 1024;
/** Largest piece of typed input one `input` message carries. */
export const MAX_INPUT_CHUNK = 16 * 1024;

/** The largest terminal size a message gives (a larger terminal sends this). */
export const MAX_TERMINAL_SIZE = 10_000;

/**
 * The person's terminal size. 0 in either stands for a size the terminal has not reported yet
 * (`docker exec -t` starts at 0x0): the server shows such a terminal no screen until a size comes.
 */
const size = {
  cols: z.int().min(0).max(MAX_TERMINAL_SIZE),
  rows: z.int().min(0).max(MAX_TERMINAL_SIZE),
};

/**
 * Which process the client is, where the server asks (its `hello` names a proof file): its pid
 * and the descriptor at which it holds the proof file open (attach/peer.ts).
 */
const identity = {
  pid: z
    .int()
    .min(1)
    .max(2 ** 31 - 1)
    .optional(),
  proofFd: z
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
};

const ClientMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('list'), ...identity }),
  z.strictObject({
    type: z.literal('attach'),
    sessionId: z.string().min(1).max(64),
    readOnly: z.boolean(),
    ...size,
    ...identity,
  }),
  z.strictObject({ type: z.literal('input'), data: z.string().max(MAX_INPUT_CHUNK) }),
  z.strictObject({ type: z.literal('size'), ...size }),
]);

export type ClientMessage = z.output<typeof ClientMessageSchema>;

/** One session as `agent-tty attach` lists it. */
export interface ListedSession {
  readonly sessionId: string;
  readonly command: string | null;
  readonly status: 'running' | 'exited';
  readonly cols: number;
  readonly rows: number;
  /** How long ago the screen last changed, ms. */
  readonly quietMs: number;
  readonly watchers: number;
}

export type ServerMessage =
  /**
   * The server's first line on every connection. `proof`: a path (/proc/PID/fd/N) the client
   * opens and holds while it makes its request, to show which process it is (absent where the
   * server cannot check, e.g. macOS).
   */
  | { readonly type: 'hello'; readonly proof?: string }
  | {
      readonly type: 'server';
      readonly pid: number;
      /** The MCP client's name from its initialize request ('' before it). */
      readonly client: string;
      readonly startedAt: string;
      readonly sessions: readonly ListedSession[];
    }
  | {
      readonly type: 'attached';
      readonly sessionId: string;
      readonly command: string | null;
      readonly readOnly: boolean;
    }
  /** Escape sequences to write to the person's terminal as they are. */
  | { readonly type: 'frame'; readonly data: string }
  | { readonly type: 'notice'; readonly message: string }
  /** The attachment is over: the program exited, the session closed, or the request failed. */
  | {
      readonly type: 'end';
      readonly reason: 'exited' | 'closed' | 'error';
      readonly message: string;
      /** The screen's last rows as text, for the person's scrollback. */
      readonly screen?: readonly string[];
    };

export function encode(message: ClientMessage | ServerMessage): string {
  return `${JSON.stringify(message)}\n`;
}

/** A client's line as a message, or a reason it is not one. */
export function parseClientMessage(
  line: string,
): { ok: true; message: ClientMessage } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const parsed = ClientMessageSchema.safeParse(value);
  if (!parsed.success) {
    return { ok: false, reason: parsed.error.issues[0]?.message ?? 'not a message' };
  }
  return { ok: true, message: parsed.data };
}

/** A server's line as a message; undefined for a line this client does not understand. */
export function parseServerMessage(line: string): ServerMessage | undefined {
  try {
    const value = JSON.parse(line) as { type?: unknown };
    return typeof value?.type === 'string' ? (value as ServerMessage) : undefined;
  } catch {
    return undefined;
  }
}
