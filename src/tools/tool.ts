/**
 * What a tool is: name, title, description for the agent, annotations, strict input and output
 * schemas, and a handler: an adapter from validated arguments to the session layer and back to a
 * result. Handlers throw TerminalError; index.ts shapes every result.
 */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { LaunchDefaults } from '../session/launch.js';
import type { SessionRegistry } from '../session/registry.js';
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/log.js';
import type { AttachCommand } from './presence.js';
import type { ToolOutcome } from './result.js';

export interface ToolContext {
  readonly registry: SessionRegistry;
  readonly config: Config;
  readonly logger: Logger;
  readonly launchDefaults: LaunchDefaults;
  /** The command a person runs to attach to a session; absent when attach is off. */
  readonly attachCommand?: AttachCommand | undefined;
  /** The calling MCP client's name from its initialize (at most 100 characters), if it gave one. */
  readonly clientName?: (() => string | undefined) | undefined;
  /**
   * Aborts when no one can read this call's result any more: its HTTP connection closed before
   * the answer (absent over stdio, where the connection is the server's life).
   */
  readonly abandoned?: AbortSignal | undefined;
  /** Aborts when the client cancels the request. */
  readonly signal: AbortSignal;
  /** Sends a progress notification, when the client asked for them (a progress token). */
  readonly progress?:
    | ((progress: number, total: number | undefined, message: string) => void)
    | undefined;
}

export interface ToolDefinition<I extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly annotations: ToolAnnotations;
  /** Getters, so that schemas are built on first use rather than at start-up. */
  readonly inputSchema: () => I;
  readonly outputSchema: () => z.ZodType;
  /** Result fields every failure carries unless the error says more (terminal_input: nothing sent). */
  readonly failureFields?: Readonly<Record<string, unknown>>;
  handler(args: z.output<I>, ctx: ToolContext): Promise<ToolOutcome>;
}

export function defineTool<I extends z.ZodType>(tool: ToolDefinition<I>): ToolDefinition<I> {
  return tool;
}
