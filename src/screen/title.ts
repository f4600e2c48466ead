/** The window title a program sets (OSC 0/2), as results show it. Pure. */
import { makeTextSafe, truncateCodeUnits } from './text-safety.js';

/** Longest title reported; a longer one is cut and ends with an ellipsis. */
export const MAX_TITLE_LENGTH = 256;

/** The title as it can be shown: safe characters, bounded length. */
export function safeTitle(title: string): string {
  const safe = makeTextSafe(
    title.length > MAX_TITLE_LENGTH * 2 ? title.slice(0, MAX_TITLE_LENGTH * 2) : title,
  );
  if (safe.length <= MAX_TITLE_LENGTH) return safe;
  return `${truncateCodeUnits(safe, MAX_TITLE_LENGTH - 1)}…`;
}
