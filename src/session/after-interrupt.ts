/**
 * Keys after an interrupt. The terminal's signal characters (Ctrl+C, Ctrl+\ and Ctrl+Z in its
 * default mode) make the program handle a signal, and a line editor such as bash's readline puts
 * the terminal back in its own mode only afterwards: keys that arrive in between are echoed by the
 * terminal and can be lost (bash drops the first, so `echo ok` runs as `cho ok` about one time in
 * four on a busy machine). So the next sending action of a batch waits until the program reads the
 * terminal again, at most INTERRUPT_SETTLE_MS; without the input-wait probe (macOS), for
 * INTERRUPT_PAUSE_MS.
 * @see spec/tools.md (terminal_input)
 */
import { sleep } from './sleep.js';

/** Longest wait, after a signal character, for the program to read the terminal again. */
export const INTERRUPT_SETTLE_MS = 300;
/** The pause after a signal character where the probe cannot tell. */
export const INTERRUPT_PAUSE_MS = 50;
/** How often the probe is asked meanwhile. */
const POLL_MS = 5;
/**
 * Output quiet for this long beside the wait: bash passes through short reads of the terminal
 * while it handles the signal, before it draws its new prompt.
 */
const QUIET_MS = 15;

/** VINTR, VQUIT and VSUSP in the terminal's default mode. */
const SIGNAL_CHARACTERS: ReadonlySet<number> = new Set([0x03, 0x1c, 0x1a]);

/** Whether `bytes` hold one of the terminal's signal characters. */
export function sendsSignalCharacter(bytes: Uint8Array): boolean {
  return bytes.some((b) => SIGNAL_CHARACTERS.has(b));
}

/** What the wait is judged from (a Session). */
export interface InterruptTarget {
  readonly status: 'running' | 'exited';
  readonly detectsInputWait: boolean;
  isWaitingForInput(): boolean;
  /** When output was last parsed (performance.now()), and the bytes still waiting to be. */
  readonly lastParsedAt: number;
  readonly pendingBytes: number;
  /** Bytes of output received so far. */
  readonly outputBytes: number;
}

/**
 * Resolves once the program has printed something since the signal character was sent (when it
 * had printed `outputBytesBefore`) and reads the terminal again (the probe counts only a wait
 * begun since that input) with its output quiet for QUIET_MS, has exited, or
 * INTERRUPT_SETTLE_MS passed (a program that ignores the signal and prints nothing).
 */
export async function whenReadingAgain(
  target: InterruptTarget,
  outputBytesBefore: number,
  signal?: AbortSignal,
  now: () => number = () => performance.now(),
): Promise<void> {
  if (!target.detectsInputWait) return sleep(INTERRUPT_PAUSE_MS, signal);
  const deadline = now() + INTERRUPT_SETTLE_MS;
  // The terminal hands input to the program asynchronously: a program that was about to read
  // may read again before the signal reaches it. What it prints (bash's `^C` and prompt, python's
  // KeyboardInterrupt) says the signal arrived.
  const settled = () =>
    target.outputBytes > outputBytesBefore &&
    target.pendingBytes === 0 &&
    now() - target.lastParsedAt >= QUIET_MS &&
    target.isWaitingForInput();
  while (target.status === 'running' && now() < deadline && !settled()) {
    await sleep(POLL_MS, signal);
  }
}
