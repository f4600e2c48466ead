/**
 * Drives the built server (dist/main.js) over a real stdio MCP connection with the SDK's Client,
 * as an agent's client would. Helpers unwrap the structured results.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseProcStat } from '../../src/pty/proc-stat.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const SERVER = resolve(ROOT, 'dist/main.js');
export const FIXTURES = resolve(ROOT, 'test/fixtures');

/** The six tools, in the order the server lists them. */
export const TOOL_NAMES = [
  'terminal_start',
  'terminal_input',
  'terminal_snapshot',
  'terminal_resize',
  'terminal_list',
  'terminal_close',
];

export interface Snapshot {
  status: 'running' | 'exited';
  exitCode?: number;
  signal?: string;
  cols: number;
  rows: number;
  buffer: 'normal' | 'alternate';
  screen: string[];
  cursor: { row: number; column: number; visible: boolean };
  styles: Record<string, unknown>[];
  spans: [number, number, number, number][];
  mouse: { tracking: string; encoding: string };
  settled: boolean;
  waitingForInput?: boolean;
  title?: string;
  historyTotal?: number;
  history?: {
    since: number;
    lines: string[];
    total: number;
    missedLines: number;
    nextSince?: number;
  };
  region?: { row: number; column: number; rows: number; cols: number; lines: string[] };
  matches?: { row: number; column: number; endColumn: number; text: string }[];
  scrollback?: { lines: string[]; availableLines: number };
}

export interface Structured {
  sessionId?: string;
  snapshot?: Snapshot;
  actionsCompleted?: number;
  inputSent?: boolean;
  failedActionIndex?: number;
  closed?: boolean;
  sessions?: {
    sessionId: string;
    status: string;
    exitCode?: number;
    signal?: string;
    pid: number;
  }[];
  error?: { code: string; message: string; details: Record<string, unknown> };
}

export interface ToolReply {
  readonly result: CallToolResult;
  readonly data: Structured;
  readonly text: string;
  readonly isError: boolean;
}

export interface Harness {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  readonly pid: number;
  stderr(): string;
  call(name: string, args?: Record<string, unknown>): Promise<ToolReply>;
  /** terminal_start that must succeed; returns the session id and first snapshot. */
  start(args: Record<string, unknown>): Promise<{ id: string; snapshot: Snapshot }>;
  input(
    sessionId: string,
    actions: Record<string, unknown>[],
    extra?: Record<string, unknown>,
  ): Promise<ToolReply>;
  snapshot(sessionId: string, extra?: Record<string, unknown>): Promise<Snapshot>;
  /** Polls terminal_snapshot until `predicate` holds. */
  waitFor(
    sessionId: string,
    predicate: (s: Snapshot) => boolean,
    timeoutMs?: number,
  ): Promise<Snapshot>;
  close(): Promise<void>;
}

export async function startServer(
  options: { args?: string[]; env?: Record<string, string>; cwd?: string } = {},
): Promise<Harness> {
  if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run npm run build first`);
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, ...(options.args ?? [])],
    env: { ...(process.env as Record<string, string>), ...options.env },
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'agent-tty-tests', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid as number;

  const call = async (name: string, args: Record<string, unknown> = {}): Promise<ToolReply> => {
    const result = (await client.callTool({ name, arguments: args }, undefined, {
      timeout: 120_000,
    })) as CallToolResult;
    const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    return {
      result,
      data: (result.structuredContent ?? {}) as Structured,
      text,
      isError: result.isError === true,
    };
  };

  const harness: Harness = {
    client,
    transport,
    pid,
    stderr: () => stderr,
    call,
    async start(args) {
      const reply = await call('terminal_start', args);
      if (reply.isError) throw new Error(`terminal_start failed: ${reply.text}`);
      return { id: reply.data.sessionId as string, snapshot: reply.data.snapshot as Snapshot };
    },
    input(sessionId, actions, extra = {}) {
      return call('terminal_input', { sessionId, actions, ...extra });
    },
    async snapshot(sessionId, extra = {}) {
      const reply = await call('terminal_snapshot', { sessionId, ...extra });
      if (reply.isError) throw new Error(`terminal_snapshot failed: ${reply.text}`);
      return reply.data.snapshot as Snapshot;
    },
    async waitFor(sessionId, predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      let last: Snapshot | undefined;
      while (Date.now() < deadline) {
        last = await harness.snapshot(sessionId, { settleMs: 50, settleTimeoutMs: 500 });
        if (predicate(last)) return last;
      }
      throw new Error(
        `condition not met within ${timeoutMs} ms; last screen:\n${last?.screen.join('\n')}`,
      );
    },
    async close() {
      await client.close();
    },
  };
  return harness;
}

/** The screen as one string, rows joined by newlines, trailing blank rows dropped. */
export function screenText(snapshot: Snapshot): string {
  return snapshot.screen.join('\n').replace(/\n+$/, '');
}

/** Whether a process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const state = parseProcStat(readFileSync(`/proc/${pid}/stat`, 'latin1'))?.state;
    return state !== 'Z' && state !== 'X';
  } catch {
    return process.platform !== 'linux';
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Skips a test (with the reason printed) when a program is not installed. */
export function which(program: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const full = resolve(dir || '.', program);
    if (existsSync(full)) return full;
  }
  return undefined;
}
