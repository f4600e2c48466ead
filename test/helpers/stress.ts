/**
 * Shared pieces of the stress tests (torture, load, hostile): the fixture command lines, timing
 * of calls, percentiles, and the server's resident memory read from /proc.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseProcStat } from '../../src/pty/proc-stat.js';
import { FIXTURES, type Harness, type Snapshot, which } from './mcp-harness.js';

/** The interpreter itself: version-manager shims wrap it in a shell. */
export function python(): string {
  return execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], {
    encoding: 'utf8',
  }).trim();
}

export const needsPython = which('python3') ? false : 'python3 is not installed';

/** The command line that runs test/fixtures/<file> with `args` (each single-quoted). */
export function fixtureCommand(file: string, ...args: string[]): string {
  const quoted = [join(FIXTURES, file), ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`);
  return `${python()} ${quoted.join(' ')}`;
}

/** Milliseconds `task` took, with its value. */
export async function timed<T>(task: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await task();
  return { ms: performance.now() - start, value };
}

/** The p-th percentile (0-100) of `values`, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

/** User plus system CPU time of `pid`, in clock ticks of 1/100 s (Linux). */
export function cpuTicks(pid: number): number {
  const stat = parseProcStat(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  return stat ? stat.utime + stat.stime : Number.NaN;
}

/** Resident set size of `pid` in KiB (Linux), or undefined where /proc is absent. */
export function rssKiB(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  } catch {
    return undefined;
  }
}

/** Polls terminal_snapshot (settleMs 0 unless told) until `predicate` holds; for busy screens. */
export async function pollUntil(
  h: Harness,
  sessionId: string,
  predicate: (s: Snapshot) => boolean,
  timeoutMs = 20_000,
  timing: Record<string, number> = { settleMs: 0 },
): Promise<Snapshot> {
  const deadline = Date.now() + timeoutMs;
  let last: Snapshot | undefined;
  while (Date.now() < deadline) {
    last = await h.snapshot(sessionId, timing);
    if (predicate(last)) return last;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`condition not met in ${timeoutMs} ms; last screen:\n${last?.screen.join('\n')}`);
}

/** Calls terminal_list every `everyMs` until `stop()` is true; resolves with each reply time. */
export async function listLatencies(
  h: Harness,
  stop: () => boolean,
  everyMs = 10,
): Promise<number[]> {
  const times: number[] = [];
  while (!stop()) {
    const { ms, value } = await timed(() => h.call('terminal_list'));
    if (value.isError) throw new Error(`terminal_list failed: ${value.text}`);
    times.push(ms);
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return times;
}

/** The last row that is not blank. */
export function lastNonBlank(s: Snapshot): { row: number; text: string } {
  for (let i = s.screen.length - 1; i >= 0; i--) {
    const text = s.screen[i] as string;
    if (text.trim() !== '') return { row: i + 1, text };
  }
  return { row: 0, text: '' };
}
