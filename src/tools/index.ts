/**
 * The six tools (TOOLS, the one list; tool-list.ts makes its tools/list entries) and the call
 * path: validate strictly (INVALID_ARGUMENT names each offending field), run the handler, shape
 * the result, guard its size. Every failure becomes an isError result with a stable code.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TerminalError, toTerminalError } from '../shared/errors.js';
import { invalidArguments, reservedKeysError } from './invalid-arguments.js';
import { withAttachHint, withPresence } from './presence.js';
import { errorResult, guardResultSize, successResult } from './result.js';
import { terminalClose } from './terminal-close.js';
import { terminalInput } from './terminal-input.js';
import { terminalList } from './terminal-list.js';
import { terminalResize } from './terminal-resize.js';
import { terminalSnapshot } from './terminal-snapshot.js';
import { terminalStart } from './terminal-start.js';
import type { ToolContext, ToolDefinition } from './tool.js';

/** The tools, in the order tools/list gives them. */
export const TOOLS: readonly ToolDefinition[] = [
  terminalStart,
  terminalInput,
  terminalSnapshot,
  terminalResize,
  terminalList,
  terminalClose,
] as unknown as readonly ToolDefinition[];

export function findTool(name: string): ToolDefinition | undefined {
  return TOOLS.find((t) => t.name === name);
}

export async function callTool(
  tool: ToolDefinition,
  args: unknown,
  ctx: ToolContext,
): Promise<CallToolResult> {
  let result: CallToolResult;
  try {
    result = successResult(await tool.handler(parseArguments(tool, args), ctx));
  } catch (err) {
    result = errorResult(toToolError(err, tool, args, ctx));
  }
  result = withPresence(tool.name, result, ctx.registry, ctx.attachCommand);
  return guardResultSize(result, ctx.config.maxResultBytes);
}

/**
 * The arguments as the tool's input schema outputs them; INVALID_ARGUMENT naming each offending
 * field otherwise. `args` is the value as parsed from JSON, so that a reserved key such as
 * `__proto__` is still there to be refused.
 */
function parseArguments(tool: ToolDefinition, args: unknown): unknown {
  const reserved = reservedKeysError(tool.name, args);
  if (reserved) throw reserved;
  // reportInput: the issues carry the values given, so the message can quote them.
  const schema = tool.inputSchema();
  const parsed = schema.safeParse(args ?? {}, { reportInput: true });
  if (!parsed.success) throw invalidArguments(tool.name, parsed.error, schema);
  return parsed.data;
}

/**
 * Any failure as a TerminalError that still says what it can: the sessionId the call named and
 * the tool's failure fields, beneath what the error itself carries. What is not a TerminalError
 * is a bug: INTERNAL, its stack to the log.
 */
function toToolError(
  err: unknown,
  tool: ToolDefinition,
  args: unknown,
  ctx: ToolContext,
): TerminalError {
  if (!(err instanceof TerminalError)) {
    ctx.logger.error(`${tool.name} failed: ${(err as Error)?.stack ?? String(err)}`);
  }
  const sessionId = (args as { sessionId?: unknown } | null)?.sessionId;
  const failed = toTerminalError(err, tool.name);
  const named = typeof sessionId === 'string' ? sessionId : failed.partial.sessionId;
  const error = withAttachHint(
    failed,
    typeof named === 'string' ? named : undefined,
    ctx.attachCommand,
  );
  return error.withPartial({
    ...(typeof sessionId === 'string' && sessionId.length <= 64 ? { sessionId } : {}),
    ...tool.failureFields,
  });
}
