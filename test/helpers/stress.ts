/**
 * Shared pieces of the stress and timing tests: how long a call took, percentiles, the latency of
 * terminal_list under load, the last row written.
 */
import type { Harness } from './server.js';
import type { Snapshot } from './tool-calls.js';
import { sleep } from './wait.js';

/**
 * The server's documented memory bound (spec/guarantees.md, Bounds), in MiB: the server without
 * transcripts (at most 170 MiB under 8 firehoses, Guarantee 12) plus, per session, the 0.5 MiB
 * its transcript works in (its lines are on disk) and what its emulator holds beyond the default
 * size (`screenMiB`, see emulatorMiB).
 */
export function memoryBoundMiB(sessions: number, screenMiB = 0): number {
  return 170 + sessions * (TRANSCRIPT_WORKING_MIB + screenMiB);
}

/** Memory a session's transcript takes while its files take its chunks (spec/guarantees.md, Bounds). */
export const TRANSCRIPT_WORKING_MIB = 0.5;

/**
 * What a session's emulator holds, in MiB (spec/guarantees.md, Bounds): its screen and the 200 lines
 * above it, `cols × (rows + 200)` cells of `cellBytes` each (see CELL_BYTES).
 */
export function emulatorMiB(cols: number, rows: number, cellBytes: number): number {
  return (cols * (rows + 200) * cellBytes) / 2 ** 20;
}

/** Resident bytes a cell of the emulator takes, as measured (spec/guarantees.md, Bounds). */
export const CELL_BYTES = {
  /** One character (accented or wide ones included). */
  character: 12,
  /** A character with joined marks, `units` UTF-16 units in all (at most 32). */
  joined: (units: number) => 12 + 40 + 4 * units,
  /** Extended attributes (underline style or colour, hyperlink) add this. */
  extended: 100,
};

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
    await sleep(everyMs);
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
