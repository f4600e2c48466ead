/**
 * The readable text of a result, for clients that show the model text rather than structured
 * content: a status line, numbered rows (rows.ts), the cursor, and compact style runs
 * (`row: start-end=sN`, sN being styles[N]) with their legend; a screen with more styling than a
 * reader could use gets a one-line summary instead. Pure.
 */

import type { BatchProgress } from '../session/run-batch.js';
import type { SessionInfo, Snapshot } from '../session/session.js';
import type { WaitReport } from '../shared/contract/progress.js';
import type { Style } from '../shared/contract/snapshot.js';
import { formatDuration } from '../shared/duration.js';
import { formatHistory, formatScreenRows, formatScrollback, SEPARATOR } from './rows.js';

/** Above this, the legend and runs are summarised in the text (structured content has them all). */
const MAX_STYLE_TEXT = 16 * 1024;

export function formatSnapshot(sessionId: string, s: Snapshot): string {
  const lines: string[] = [statusLine(sessionId, s)];
  // The history page notes it already (rows.ts).
  if (s.transcriptError !== undefined && s.history?.transcriptError === undefined) {
    lines.push(`transcript: ${s.transcriptError}`);
  }
  if (s.title) lines.push(`title: ${JSON.stringify(s.title)}`);
  const width = String(s.rows).length;
  if (s.history) lines.push(...formatHistory(s.history));
  if (s.scrollback) lines.push(...formatScrollback(s.scrollback, s.historyTotal));
  lines.push(
    `screen (${s.cols}x${s.rows}, ${s.buffer} buffer${s.historyTotal > 0 ? `, row 1 is line ${s.historyTotal + 1}` : ''}), cursor row ${s.cursor.row} column ${s.cursor.column}${s.cursor.visible ? '' : ' (hidden)'}:`,
    ...formatScreenRows(s.screen, s.rows, width),
  );
  if (s.region) {
    const r = s.region;
    lines.push(
      `region rows ${r.row}-${r.row + r.rows - 1}, columns ${r.column}-${r.column + r.cols - 1}:`,
    );
    r.lines.forEach((text, i) => {
      lines.push(`${String(r.row + i).padStart(width)}${SEPARATOR}${text}`);
    });
  }
  if (s.matches) lines.push(formatMatches(s.matches, s.matchesTruncated === true));
  if (s.spans && s.styles) {
    const legend = `styles: ${formatLegend(s.styles)}`;
    const spans = `spans: ${formatSpans(s.spans)}`;
    if (legend.length + spans.length <= MAX_STYLE_TEXT) {
      lines.push(legend, spans);
    } else {
      lines.push(
        `styles: ${s.styles.length} styles in ${s.spans.length} runs, too many to list here; the structured result has them all`,
      );
    }
  }
  return lines.join('\n');
}

/**
 * Matches in the one line numbering: `line N:start-end "text"` in history, `row r (line N):…` on
 * the screen; when capped, where a further search continues.
 */
function formatMatches(matches: NonNullable<Snapshot['matches']>, truncated: boolean): string {
  if (matches.length === 0) return 'matches: none';
  const list = matches
    .map((m) => {
      const where = m.row === undefined ? `line ${m.line}` : `row ${m.row} (line ${m.line})`;
      return `${where}:${m.column}-${m.endColumn} ${JSON.stringify(m.text)}`;
    })
    .join('; ');
  if (!truncated) return `matches: ${list}`;
  const last = matches[matches.length - 1] as (typeof matches)[number];
  const next =
    last.row === undefined
      ? `search on after it with find.history ${last.line}`
      : 'narrow the search';
  return `matches (the first ${matches.length}; there are more, ${next}): ${list}`;
}

function statusLine(sessionId: string, s: Snapshot): string {
  const parts = [`session ${sessionId}`];
  if (s.status === 'exited') {
    parts.push(s.signal ? `exited (killed by ${s.signal})` : `exited (exit code ${s.exitCode})`);
  } else {
    parts.push('running');
  }
  parts.push(settleText(s));
  if (s.historyTotal > 0) parts.push(`history ${s.historyTotal} lines`);
  if (s.waitingForInput) parts.push('waiting for input');
  if (s.foreground) parts.push(`foreground: ${s.foreground.command} (${s.foreground.pid})`);
  if (s.mouse) parts.push(`mouse ${s.mouse.tracking}/${s.mouse.encoding}`);
  return parts.join(' · ');
}

/** What the observation saw: settled, still changing at its deadline, or (none ran) how quiet. */
export function settleText(s: Pick<Snapshot, 'settled' | 'settle' | 'quietMs'>): string {
  if (s.settled) return 'settled';
  if (s.settle === 'timeout') return 'still changing at the deadline';
  if (s.settle === 'starting') return 'no output yet';
  if (s.settle === 'none') {
    if (s.quietMs === undefined) return 'not observed';
    return s.quietMs === 0 ? 'output still arriving' : `quiet for ${formatDuration(s.quietMs)}`;
  }
  return 'not settled';
}

function formatStyle(style: Style): string {
  const parts: string[] = [];
  if (style.fg !== undefined) parts.push(`fg=${style.fg}`);
  if (style.bg !== undefined) parts.push(`bg=${style.bg}`);
  for (const [key, value] of Object.entries(style)) {
    if (value === true) parts.push(key);
  }
  return parts.join(',');
}

function formatLegend(styles: readonly Style[]): string {
  return styles.map((style, i) => `s${i}=${formatStyle(style)}`).join(' ');
}

function formatSpans(spans: NonNullable<Snapshot['spans']>): string {
  const out: string[] = [];
  let row = -1;
  let current: string[] = [];
  for (const [r, start, end, id] of spans) {
    if (r !== row) {
      if (current.length) out.push(`${row}: ${current.join(' ')}`);
      row = r;
      current = [];
    }
    current.push(start === end ? `${start}=s${id}` : `${start}-${end}=s${id}`);
  }
  if (current.length) out.push(`${row}: ${current.join(' ')}`);
  return out.join('; ');
}

/**
 * terminal_list's text; a session another client started (over HTTP, several clients share the
 * terminals) says which, by the name it gave in initialize.
 */
export function formatSessionList(sessions: readonly SessionInfo[], caller?: string): string {
  if (sessions.length === 0) return 'no sessions; start one with terminal_start';
  return sessions
    .map((s) => {
      const status =
        s.status === 'running'
          ? 'running'
          : s.signal
            ? `exited (killed by ${s.signal})`
            : `exited (exit code ${s.exitCode})`;
      const what = s.command === null ? 'interactive shell' : JSON.stringify(s.command);
      const people = [
        s.watchers ? `${s.watchers} attached` : '',
        s.personTyped ? 'a person typed since your last call' : '',
        s.attach ? `attach: ${s.attach}` : '',
      ].filter(Boolean);
      const starter =
        s.client !== undefined && s.client !== caller
          ? [`started by ${JSON.stringify(s.client)}`]
          : [];
      const foreground = s.foreground
        ? [`foreground: ${s.foreground.command} (${s.foreground.pid})`]
        : [];
      const transcript = s.transcriptError ? [`transcript: ${s.transcriptError}`] : [];
      return [
        `${s.sessionId} · ${status} · ${s.cols}x${s.rows} · pid ${s.pid} · ${what} · cwd ${s.cwd}`,
        ...foreground,
        ...starter,
        ...people,
        ...transcript,
      ].join(' · ');
    })
    .join('\n');
}

/** The first line of a terminal_input result: what was sent and how each wait ended. */
export function formatProgress(progress: BatchProgress): string {
  const parts = [
    `actionsCompleted: ${progress.actionsCompleted}, inputSent: ${progress.inputSent}`,
  ];
  for (const w of progress.waits) {
    if (w.command) {
      parts.push(
        `wait #${w.actionIndex}: ${formatCommand(w.reason, w.command)}, after ${formatDuration(w.elapsedMs)}`,
      );
      continue;
    }
    const where = matchPlace(w.match);
    const what = w.match ? ` ${JSON.stringify(w.match.text)}${where}` : '';
    parts.push(`wait #${w.actionIndex}: ${w.reason}${what} after ${formatDuration(w.elapsedMs)}`);
  }
  return parts.join('\n');
}

/** Where a wait's match is: ` at row 3 column 5`, with its line once that differs from the row. */
function matchPlace(match: WaitReport['match']): string {
  if (!match) return '';
  if (match.row === undefined) return match.line === undefined ? '' : ` at line ${match.line}`;
  const line = match.line !== undefined && match.line !== match.row ? ` (line ${match.line})` : '';
  return ` at row ${match.row} column ${match.column}${line}`;
}

/**
 * `command finished: exit 1, output lines 12-40`; `command finished: exit code unknown (why), …`;
 * `the shell exited during the command: …`.
 */
function formatCommand(reason: string, command: NonNullable<WaitReport['command']>): string {
  const head = reason === 'finished' ? 'command finished' : 'the shell exited during the command';
  const exit =
    command.exitCode !== undefined
      ? `exit ${command.exitCode}, `
      : command.exitCodeUnknown !== undefined
        ? `exit code unknown (${command.exitCodeUnknown}), `
        : '';
  const { fromLine, toLine } = command;
  const lines =
    fromLine === undefined || toLine === undefined
      ? 'no output'
      : fromLine === toLine
        ? `output line ${fromLine}`
        : `output lines ${fromLine}-${toLine}`;
  return `${head}: ${exit}${lines}`;
}
