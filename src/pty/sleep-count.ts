/**
 * How the input-wait probe tells that a program has read input written to it: the times its main
 * thread has gone to sleep (voluntary context switches, /proc/<pid>/status, Linux).
 * @see spec/guarantees.md (Settlement: the input-wait signal)
 */
import { readProcFile } from './proc-reader.js';

/**
 * Times the process's main thread has gone to sleep (voluntary context switches); 0 when it
 * cannot be read. A program seen waiting for input after input was written has slept since,
 * whether it was asleep (it woke, read, and slept again) or running when the input came (it read
 * without ever being scheduled out, then slept): a count of times it was scheduled in misses the
 * second case.
 */
export function readSleepCount(pid: number): number {
  return parseSleepCount(readProcFile(`/proc/${pid}/status`));
}

/** The voluntary_ctxt_switches field of a /proc/<pid>/status text; 0 when it has none. */
export function parseSleepCount(status: string | undefined): number {
  const match = status ? /voluntary_ctxt_switches:\s+(\d+)/.exec(status) : null;
  return match ? Number(match[1]) : 0;
}
