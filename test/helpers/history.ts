/** Reading a Screen's whole history as an agent does: historySince, page after page. */
import type { Screen } from '../../src/screen/screen.js';

/** Every history line, read with historySince in pages of `pageLines` lines. */
export function readAllHistory(screen: Screen, pageLines: number): string[] {
  const out: string[] = [];
  let since = 0;
  for (;;) {
    const page = screen.historySince(since, pageLines, Number.POSITIVE_INFINITY);
    if (page.lines.length === 0) return out;
    out.push(...page.lines);
    since = page.since + page.lines.length;
  }
}
