// What a process costs, read from /proc (Linux): resident memory now and at its peak, and CPU
// time, for the hostile loads. Elsewhere every figure reads as NaN.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseProcStat } from '../../build/src/pty/proc-stat.js';

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** VmRSS and VmHWM (the peak resident set since the process started), in MiB. */
export function memoryMiB(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1]);
    return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
  } catch {
    return { rss: Number.NaN, peak: Number.NaN };
  }
}

/** utime + stime of the process, in ms. */
export function cpuMs(pid) {
  try {
    const stat = parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return stat ? ((stat.utime + stat.stime) * 1000) / TICKS_PER_SECOND : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * Watches a process from now on: `stop()` returns its CPU use as % of one core over the watch,
 * the largest VmRSS sampled every `everyMs` and its VmHWM at the end.
 */
export function watchProcess(pid, everyMs = 50) {
  const startedAt = performance.now();
  const cpuAtStart = cpuMs(pid);
  let sampledPeak = memoryMiB(pid).rss;
  const timer = setInterval(() => {
    const { rss } = memoryMiB(pid);
    if (rss > sampledPeak) sampledPeak = rss;
  }, everyMs);
  timer.unref(); // a load that fails before stop() must not keep the bench alive
  return {
    /** CPU ms used since the watch began. */
    cpuSoFar: () => cpuMs(pid) - cpuAtStart,
    stop() {
      clearInterval(timer);
      const elapsed = performance.now() - startedAt;
      const { rss, peak } = memoryMiB(pid);
      return {
        cpuPercent: ((cpuMs(pid) - cpuAtStart) / elapsed) * 100,
        rssMiB: rss,
        peakMiB: Math.max(peak, sampledPeak, rss),
        elapsedMs: elapsed,
      };
    },
  };
}
