// A tiny check runner for the smoke scripts: each check prints PASS, FAIL or SKIP with its
// time as it finishes; summarize() prints the verdict and totals and returns the exit code.
import { spawnSync } from 'node:child_process';

/** The six tools, in the order the server lists them. */
export const TOOLS = [
  'terminal_start',
  'terminal_input',
  'terminal_snapshot',
  'terminal_resize',
  'terminal_list',
  'terminal_close',
];

/** Thrown by a check that cannot run here; the summary lists it as SKIP with the reason. */
export class Skip extends Error {}

export function createChecks(title) {
  const results = [];
  const startedAt = performance.now();
  const print = ({ status, name, ms, detail }) =>
    console.log(`${status.padEnd(4)} ${name.padEnd(48)} ${formatMs(ms).padStart(8)}  ${detail}`);
  return {
    /** Runs `fn`; its return value is the detail line. Resolves true when it passed. */
    async check(name, fn) {
      const started = performance.now();
      let status = 'PASS';
      let detail = '';
      try {
        detail = (await fn()) ?? '';
      } catch (err) {
        status = err instanceof Skip ? 'SKIP' : 'FAIL';
        detail = err instanceof Error ? err.message : String(err);
      }
      const result = { status, name, ms: performance.now() - started, detail };
      results.push(result);
      print(result);
      return status === 'PASS';
    },
    /** Prints the verdict, repeats what did not pass, and returns 1 if any check failed. */
    summarize() {
      const count = (status) => results.filter((r) => r.status === status).length;
      const failed = count('FAIL');
      console.log(`\n${title}: ${failed ? 'FAIL' : 'PASS'}`);
      for (const result of results) if (result.status !== 'PASS') print(result);
      const elapsed = formatMs(performance.now() - startedAt);
      console.log(
        `${count('PASS')} passed, ${failed} failed, ${count('SKIP')} skipped in ${elapsed}`,
      );
      return failed ? 1 : 0;
    },
  };
}

function formatMs(ms) {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Runs a command to completion; throws unless it exits 0 (or `allowFailure` is set). */
export function run(command, args, { allowFailure = false, ...options } = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 300_000, ...options });
  if (result.error) throw result.error;
  if (result.status !== 0 && !allowFailure) {
    throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${lastLines(result)}`);
  }
  return result;
}

/** The last few lines of a command's output, for a failure message. */
export function lastLines({ stdout = '', stderr = '' }, count = 8) {
  return `${stdout}\n${stderr}`.trim().split('\n').slice(-count).join('\n');
}

export function assertEqual(actual, expected, what) {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}
