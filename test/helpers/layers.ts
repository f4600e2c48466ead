/**
 * Which layer of the suite runs: `npm test` keeps one case of each behaviour; the heavy layer
 * (`node scripts/run-tests.mjs heavy`, in CI after npm test) runs every file that imports this
 * one again with AGENT_TTY_TEST_HEAVY=1, and then the tables of programs and the repeated trials.
 */
export const HEAVY = process.env.AGENT_TTY_TEST_HEAVY === '1';

/** `skip` for a test that runs in the heavy layer only. */
export const heavyOnly: false | string = !HEAVY && 'runs in the heavy layer';

/** `n` in the heavy layer, `light` (one, by default) in npm test. */
export function trials(n: number, light = 1): number {
  return HEAVY ? n : light;
}
