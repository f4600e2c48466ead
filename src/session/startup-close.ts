/**
 * A close during a shell's start-up lets the start-up finish first. Start-up files take locks
 * (pyenv's rehash) and release them as they end, in an EXIT trap or with a plain `rmdir`; a
 * hang-up in the middle ends them with the lock taken whatever their traps do, since a trap
 * already running as its script ends (its `rmdir`, in the shell's foreground group) is killed by
 * the hang-up that the shell's exit sends that group. So closing an interactive shell that is not
 * ready yet first waits, at most STARTUP_CLOSE_WAIT_MS and never past the start-up window, until
 * the shell is at its prompt, the start-up asks for input, or the program has exited; then the
 * hang-up goes as usual. A shutdown does not wait: it ends the wait of a close already waiting.
 * @see spec/tools.md (terminal_close)
 */

/** Longest wait, at a close, for a shell's start-up to finish. */
export const STARTUP_CLOSE_WAIT_MS = 3000;
/** How often the start-up is looked at meanwhile (readiness reads /proc). */
const POLL_MS = 20;

/** What the wait is judged from (a Session whose close has begun). */
export interface StartupSource {
  /** The command run, or null for an interactive shell: only a shell's start-up is waited for. */
  readonly command: string | null;
  readonly status: 'running' | 'exited';
  /** Whether the shell is ready: at its prompt (session/readiness.ts). */
  isReady(): boolean;
  /** What is left of the start-up window, in ms. */
  startupLeftMs(): number;
  /** Whether the foreground program waits for input: the start-up asks something. */
  isWaitingForInput(): boolean;
}

export interface StartupWaitClock {
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

const REAL_CLOCK: StartupWaitClock = {
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Resolves once an interactive shell's start-up is over (ready, asking, exited),
 * STARTUP_CLOSE_WAIT_MS or the start-up window has passed, or `signal` aborts; at once for a
 * command. Never rejects.
 */
export async function whenStartupOver(
  source: StartupSource,
  signal: AbortSignal,
  clock: StartupWaitClock = REAL_CLOCK,
): Promise<void> {
  if (source.command !== null) return;
  const deadline = clock.now() + Math.min(STARTUP_CLOSE_WAIT_MS, source.startupLeftMs());
  const over = () =>
    signal.aborted ||
    source.status !== 'running' ||
    source.isReady() ||
    source.isWaitingForInput() ||
    clock.now() >= deadline;
  if (over()) return;
  // The signal lives as long as the server (the registry's shutdown): the listener must go with
  // the wait, or every closed shell stays reachable from it.
  let onAbort: () => void = () => {};
  const aborted = new Promise<void>((resolve) => {
    onAbort = resolve;
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    while (!over()) await Promise.race([clock.sleep(POLL_MS), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
