/**
 * The names nearest a misspelt one, for advice in errors: key names ("Entr" → "Enter") and
 * argument field names ("modifier" → "modifiers"). Names compare in lower case without spaces or
 * underscores (not hyphens: "C-r" is a chord, not "cr"), by edit distance with transpositions. Pure.
 */

/** Compared form of a name: "Page Down", "page_down" and "pagedown" are one. */
export function normalizeName(text: string): string {
  return text.toLowerCase().replace(/[\s_]/g, '');
}

/**
 * The candidates closest to `typed`, best first, at most `max`: none for fewer than 3
 * characters, at most one edit away up to 4 characters, two beyond. `candidates` maps each
 * compared spelling to the name to suggest (several spellings may suggest one name).
 */
export function nearestNames(
  typed: string,
  candidates: Iterable<readonly [spelling: string, name: string]>,
  max = 4,
): string[] {
  const text = normalizeName(typed);
  if (text.length < 3) return [];
  const limit = text.length <= 4 ? 1 : 2;
  let best = limit + 1;
  let names: string[] = [];
  for (const [spelling, name] of candidates) {
    const d = editDistance(text, spelling, best);
    if (d < best) {
      best = d;
      names = [name];
    } else if (d === best && d <= limit && !names.includes(name)) names.push(name);
  }
  return names.slice(0, max);
}

/** Optimal string alignment distance, stopping early once every path exceeds `cap`. */
export function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(
        (rows[i - 1]?.[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (rows[i - 1]?.[j - 1] ?? 0) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      }
      row.push(d);
    }
    if (Math.min(...row) > cap) return cap + 1;
    rows.push(row);
  }
  return rows[a.length]?.[b.length] ?? cap + 1;
}
