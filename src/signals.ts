/**
 * Which signals end the server, decided per signal from signal(7): every signal whose default
 * action ends a process, and that can be caught safely, runs the same shutdown as SIGTERM
 * (serve.ts), so the sessions' processes, their private directories and the attach socket go
 * with it. SIGUSR1 among them: Node's own handler would open its inspector on 127.0.0.1:9229.
 * @see spec/guarantees.md (Guarantees, 3)
 */
import { constants } from 'node:os';

/**
 * Signals that end a process by default and run the shutdown here. SIGQUIT would dump core: a
 * core file would hold the sessions' screens and what was typed into them, passwords included,
 * so it is taken as a request to quit. SIGABRT sent from outside is one too; Node's own abort()
 * still ends the process at once (it raises SIGABRT again, uncaught, when a handler returns).
 * SIGIO is SIGPOLL; SIGPWR and SIGSTKFLT exist on Linux only, SIGEMT on macOS only.
 */
const SHUTDOWN = [
  'SIGHUP',
  'SIGINT',
  'SIGTERM',
  'SIGQUIT',
  'SIGUSR1',
  'SIGUSR2',
  'SIGALRM',
  'SIGVTALRM',
  'SIGPROF',
  'SIGXCPU',
  'SIGSYS',
  'SIGABRT',
  'SIGPWR',
  'SIGSTKFLT',
  'SIGEMT',
] as const;

/**
 * Left as they are, each for a reason:
 * - SIGPIPE, SIGXFSZ: Node ignores them, so a write fails instead (EPIPE on a broken stdout
 *   shuts the server down; EFBIG past the file size limit ends a recording, not the server).
 * - SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP: raised by the faulting instruction itself (V8
 *   crashes through SIGILL on x64 and SIGTRAP on arm64, and uses SIGSEGV for WebAssembly); a
 *   handler that returns would fault again at once, forever.
 * - SIGKILL, SIGSTOP: cannot be caught. Real-time signals: Node has no names for them.
 * - SIGIO on macOS, where it is ignored by default.
 */
const LINUX_ONLY: readonly string[] = ['SIGIO'];

/**
 * The signals to run the shutdown on here: those of SHUTDOWN the platform has, each number once.
 * SIGPROF stays V8's when its sampling profiler was asked for at start-up (`--prof`,
 * `--cpu-prof`): the profiler signals the process with it.
 */
export function shutdownSignals(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
  platform: NodeJS.Platform = process.platform,
): NodeJS.Signals[] {
  const profiling = [...execArgv, nodeOptions].some((flag) => /--(cpu-)?prof\b/.test(flag));
  const names: string[] = [...SHUTDOWN, ...(platform === 'linux' ? LINUX_ONLY : [])];
  const numbers = new Set<number>();
  const out: NodeJS.Signals[] = [];
  for (const name of names) {
    const number = (constants.signals as Record<string, number | undefined>)[name];
    if (number === undefined || numbers.has(number)) continue;
    if (name === 'SIGPROF' && profiling) continue;
    numbers.add(number);
    out.push(name as NodeJS.Signals);
  }
  return out;
}

/**
 * Replaces Node's SIGUSR1 handler, which starts the inspector (a debugger port on 127.0.0.1
 * that any local user could reach, and run code as this user through), with one that does
 * nothing. Called first thing, in every mode; the server then makes SIGUSR1 a shutdown. Until
 * then (Node's own start-up, and again after main.ts restarts Node 24) Node's handler is in.
 * (Node's `--disable-sigusr1`, 22.14+, is no substitute: it blocks SIGUSR1 in the main thread,
 * where it then stays pending, and node-pty's children inherit the blocked signal.)
 */
export function refuseInspectorSignal(): void {
  process.on('SIGUSR1', () => {});
}
