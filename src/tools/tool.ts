/**
 * What a tool is: name, title, description for the agent, annotations, strict input and output
 * schemas, and a handler that validates, works through the session, and returns an outcome or
 * throws (TerminalError, or ToolFailure with partial fields).
 */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { LaunchDefaults } from '../session/launch.js';
import type { SessionRegistry } from '../session/registry.js';
import type { ObserveOptions } from '../session/session.js';
import type { ToolOutcome } from './result.js';

export interface ToolContext {
  readonly registry: SessionRegistry;
  readonly config: Config;
  readonly logger: Logger;
  readonly launchDefaults: LaunchDefaults;
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
  handler(args: z.output<I>, ctx: ToolContext): Promise<ToolOutcome>;
}

export function defineTool<I extends z.ZodType>(tool: ToolDefinition<I>): ToolDefinition<I> {
  return tool;
}

/** Observation timing from a call's settleMs/settleTimeoutMs and the configured defaults. */
export function observeOptions(
  config: Config,
  settleMs: number | undefined,
  settleTimeoutMs: number | undefined,
  signal?: AbortSignal,
): ObserveOptions {
  const quietMs = settleMs ?? config.quietMs;
  return {
    quietMs,
    timeoutMs: settleTimeoutMs ?? Math.max(config.settleTimeoutMs, 2 * quietMs),
    // An explicit quiet interval is honoured in full; by default an input wait ends it early.
    inputGraceMs: settleMs === undefined ? config.inputGraceMs : undefined,
    signal,
  };
}
