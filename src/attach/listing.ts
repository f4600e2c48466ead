/**
 * What `agent-tty attach` tells a person about the servers it found: the listing (each server
 * and its sessions), and which server a SESSION or SESSION@PID names, or why none or several do.
 * Pure: the servers come from attach-client.ts.
 * @see spec/attach.md (The command)
 */

import { makeTextSafe } from '../screen/text-safety.js';
import { formatDuration } from '../shared/duration.js';
import type { Listing, ServerEntry } from './attach-client.js';
import type { ListedSession } from './protocol.js';

/**
 * Text a server reports from others (the agent's command, the MCP client's name), made safe to
 * print: controls become visible stand-ins, so none reaches the person's terminal.
 */
const shown = makeTextSafe;

/** `line` cut with an ellipsis to `width` characters, when a width is given. */
function cut(line: string, width: number | undefined): string {
  const chars = [...line];
  if (width === undefined || chars.length <= width) return line;
  return `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

function formatSession(s: ListedSession): string {
  const status = s.status === 'running' ? 'running' : 'exited';
  const changed = `changed ${formatDuration(s.quietMs)} ago`;
  const watchers = s.watchers > 0 ? `${s.watchers} attached  ` : '';
  const command = s.command === null ? '(shell)' : shown(s.command);
  // The command last: on a narrow terminal it is what the line's end cuts.
  return `  ${shown(s.sessionId).padEnd(6)} ${status.padEnd(8)} ${`${s.cols}x${s.rows}`.padEnd(8)} ${changed.padEnd(19)} ${watchers}${command}`;
}

/**
 * The listing of the servers found in `dir`; on a terminal `width` columns wide, a session's line
 * is cut to fit it.
 */
export function formatListing({ servers, unlisted }: Listing, dir: string, width?: number): string {
  const lines: string[] = [];
  if (servers.length === 0 && unlisted.length === 0) {
    return `no agent-tty server is running for you (looked in ${dir})\n`;
  }
  for (const s of servers) {
    lines.push(
      `server ${s.pid} (${shown(s.client) || 'no client yet'}, started ${s.startedAt.slice(0, 19).replace('T', ' ')} UTC)`,
    );
    if (s.sessions.length === 0) lines.push('  no sessions');
    for (const session of s.sessions) lines.push(cut(formatSession(session), width));
  }
  for (const u of unlisted) lines.push(`server ${u.pid}: not listed: ${shown(u.message)}`);
  const qualify = servers.length + unlisted.length > 1 ? ' (or SESSION@PID)' : '';
  lines.push('', `attach with: agent-tty attach SESSION${qualify}; add --read-only to watch only`);
  return `${lines.join('\n')}\n`;
}

/**
 * The server `target` (`t3`, or `t3@PID`) names and its session id, or the lines that tell the
 * person why there is none (with the listing) or which `t3@PID` to choose among several.
 */
export function pickServer(
  listing: Listing,
  target: string,
  dir: string,
): { server: ServerEntry; sessionId: string } | { error: string } {
  const [sessionId, pidText] = target.split('@') as [string, string | undefined];
  const pid = pidText === undefined ? undefined : Number(pidText);
  const candidates = listing.servers.filter(
    (s) =>
      (pid === undefined || s.pid === pid) && s.sessions.some((x) => x.sessionId === sessionId),
  );
  const [first] = candidates;
  if (first === undefined) {
    const answered = listing.unlisted.length > 0 ? ' in a server that answered' : '';
    return {
      error: `agent-tty attach: no session ${target} is open${answered}.\n${formatListing(listing, dir)}`,
    };
  }
  if (candidates.length > 1) {
    const names = candidates
      .map(
        (s) =>
          `  agent-tty attach ${sessionId}@${s.pid}   (${shown(s.client) || 'unknown client'})`,
      )
      .join('\n');
    return {
      error: `agent-tty attach: ${sessionId} is open in ${candidates.length} servers; name one:\n${names}\n`,
    };
  }
  return { server: first, sessionId };
}
