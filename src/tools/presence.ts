/**
 * What every result says about people at the session (agent-tty attach): how many are attached
 * (`watchers`) and whether one typed since the agent's last result for the session
 * (`personTyped`), both only when there is something to say, plus a line at the top of the text.
 * Also the attach command an agent can give its user, in terminal_list and in INPUT_REQUIRED.
 * @see spec/attach.md
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SessionRegistry } from '../session/registry.js';
import type { TerminalError } from '../shared/errors.js';

/** The command a person runs to attach to `sessionId`, or undefined when attach is off. */
export type AttachCommand = (sessionId: string) => string | undefined;

/** The tools whose results are observations of one session (shared/contract/observation-result.ts). */
const OBSERVING = new Set([
  'terminal_start',
  'terminal_input',
  'terminal_snapshot',
  'terminal_resize',
]);

/** One line about people at the session, or '' when none is attached and none typed. */
export function presenceLine(
  watchers: number,
  personTyped: boolean,
  command: string | undefined,
): string {
  const via = command ? ` (${command})` : '';
  if (watchers > 0 && personTyped) {
    return `a person attached${via} typed since your last call: read the screen before you type`;
  }
  if (watchers > 0) {
    return `${watchers === 1 ? 'a person is' : `${watchers} people are`} watching${via}`;
  }
  return personTyped ? 'a person typed since your last call (now detached)' : '';
}

/** `result` with the session's presence fields and line, when a person is or was there. */
export function withPresence(
  toolName: string,
  result: CallToolResult,
  registry: SessionRegistry,
  attachCommand: AttachCommand | undefined,
): CallToolResult {
  if (!OBSERVING.has(toolName)) return result;
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  const sessionId = structured?.sessionId;
  if (typeof sessionId !== 'string') return result;
  const session = registry.find(sessionId);
  if (!session || session.isClosed) return result;
  const { watchers, personTyped } = session.presence.take();
  const line = presenceLine(watchers, personTyped, attachCommand?.(sessionId));
  if (line === '') return result;
  const [first, ...rest] = result.content;
  const text = first?.type === 'text' ? `${line}\n${first.text}` : line;
  return {
    ...result,
    content: [{ type: 'text', text }, ...(first?.type === 'text' ? rest : result.content)],
    // sessionId first, then these (RESULT_ORDER): an object keeps each key's first position.
    structuredContent: {
      sessionId,
      ...(watchers > 0 ? { watchers } : {}),
      ...(personTyped ? { personTyped } : {}),
      ...structured,
    },
  };
}

/** INPUT_REQUIRED names the attach command, so the agent can hand the prompt to its user. */
export function withAttachHint(
  error: TerminalError,
  sessionId: string | undefined,
  attachCommand: AttachCommand | undefined,
): TerminalError {
  if (error.code !== 'INPUT_REQUIRED' || sessionId === undefined) return error;
  const command = attachCommand?.(sessionId);
  if (!command) return error;
  return error.withMessage(
    `${error.message}; if a person must answer (a password, a code), ask your user to run \`${command}\` in a terminal and type it`,
  );
}
