/**
 * How a duration is written wherever a person or an agent reads one: `850 ms`, `3.2 s`, `95 s`,
 * `12 min`, `5 h`. Each unit's figure is cut down, never rounded up. Pure.
 */

/** 850 ms, 3.2 s, 95 s, 12 min, 5 h. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 10_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  if (ms < 120_000) return `${Math.floor(ms / 1000)} s`;
  if (ms < 7_200_000) return `${Math.floor(ms / 60_000)} min`;
  return `${Math.floor(ms / 3_600_000)} h`;
}
