/**
 * The numbered rows of a snapshot's text, one numbering for each kind: screen rows 1..rows;
 * history and scrollback lines by their history line number (1-based count of the lines that
 * ever scrolled into history, as historySince and historyTotal count). Runs of blank screen rows
 * are one line. Pure. @see spec/tools.md (Readable text)
 */
import type { Snapshot } from '../shared/contract/snapshot.js';

export const SEPARATOR = '│';
/** What follows the `first-last│` label of a run of blank screen rows. */
const BLANK_RUN = ' (blank)';

type HistoryField = NonNullable<Snapshot['history']>;
type ScrollbackField = NonNullable<Snapshot['scrollback']>;

/**
 * Screen rows 1..rows numbered from 1, padded to `width` (rows past the end of `screen` are
 * blank); two or more blank rows in a row become one line `first-last│ (blank)`, so row numbers
 * stay exact.
 */
export function formatScreenRows(screen: readonly string[], rows: number, width: number): string[] {
  const out: string[] = [];
  const row = (i: number) => (i < rows ? (screen[i] ?? '') : undefined);
  for (let i = 0; i < rows; i++) {
    let last = i;
    while (row(i) === '' && row(last + 1) === '') last++;
    if (last > i) {
      out.push(`${`${i + 1}-${last + 1}`.padStart(width)}${SEPARATOR}${BLANK_RUN}`);
      i = last;
    } else {
      out.push(`${String(i + 1).padStart(width)}${SEPARATOR}${row(i)}`);
    }
  }
  return out;
}

/**
 * The lines after history line `since - missedLines` (what the call asked for): how many were
 * new, which were dropped, which follow, and where the next call continues.
 */
export function formatHistory(h: HistoryField): string[] {
  const asked = h.since - h.missedLines;
  const end = h.since + h.lines.length;
  const parts = [`history after line ${asked}: ${count(h.total - asked, 'new line')}`];
  if (h.missedLines > 0) {
    parts.push(`${lineRange(asked + 1, h.since)} dropped before they were read`);
  }
  if (h.lines.length > 0) parts.push(`${lineRange(h.since + 1, end)} below`);
  parts.push(
    end < h.total
      ? `${count(h.total - end, 'more line')}: continue with historySince ${end}`
      : `continue with historySince ${end}`,
  );
  const header = parts.join('; ');
  const note = h.transcriptError === undefined ? [] : [`transcript: ${h.transcriptError}`];
  if (h.lines.length === 0) return [header, ...note];
  return [`${header}:`, ...numbered(h.lines, h.since + 1), ...note];
}

/** The last lines of history above the screen, numbered by history line (they end at `total`). */
export function formatScrollback(sb: ScrollbackField, historyTotal: number): string[] {
  const n = sb.lines.length;
  if (n === 0) return ['scrollback: no history lines'];
  const first = historyTotal - n + 1;
  const earlier =
    first > 1 ? `; ${lineRange(1, first - 1)} before them: read with historySince` : '';
  return [
    `scrollback: ${lineRange(first, historyTotal)} of history, the last ${n} of ${sb.availableLines} held${earlier}:`,
    ...numbered(sb.lines, first),
  ];
}

/** `lines`, the first numbered `first`, numbers right-aligned. */
function numbered(lines: readonly string[], first: number): string[] {
  const width = String(first + lines.length - 1).length;
  return lines.map((text, i) => `${String(first + i).padStart(width)}${SEPARATOR}${text}`);
}

function lineRange(first: number, last: number): string {
  return first === last ? `line ${first}` : `lines ${first}-${last}`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
