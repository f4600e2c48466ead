/** Pausing in tests. Waiting for a screen is tool-calls.ts's waitFor. */

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
