/**
 * Interrupts that reach a program able to take them, and keys after them. The terminal's signal
 * characters (Ctrl+C, Ctrl+\ and Ctrl+Z in its default mode) make the program handle a signal.
 * Before: a shell between a command and its prompt (running PROMPT_COMMAND, or between an Enter and
 * its command running) keeps a Ctrl+C pending and acts on it only at the next key, which it drops,
 * or loses it to a command that has the terminal but is not yet its program; so the character
 * waits until the shell reads the terminal or the command's program runs.
 * After: a line editor such as readline puts the terminal back in its own mode only once it has
 * handled the signal, and keys that arrive in between can be lost; so the next sending action
 * waits until the program reads the terminal again.
 * @see spec/tools.md (terminal_input)
 */
import { sleep } from './sleep.js';

/** Longest wait, after a signal character, for the program to read the terminal again. */
export const INTERRUPT_SETTLE_MS = 300;
/** The pause after a signal character where the probe cannot tell. */
export const INTERRUPT_PAUSE_MS = 50;
/**
 * Longest hold of a signal character while the shell is between commands: PROMPT_COMMAND with
 * a prompt program takes a few hundred ms on a loaded machine; a shell busy in a loop of its own
 * (`while :; do :; done`) gets the character then.
 */
export const SHELL_HOLD_MS = 1000;
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

/** The clock the waits run on: performance.now() and real timers, or a test's. */
export interface InterruptClock {
  readonly now: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}
const REAL_CLOCK: InterruptClock = { now: () => performance.now(), sleep };

/** What the waits are judged from (a Session). */
export interface InterruptTarget {
  readonly status: 'running' | 'exited';
  readonly detectsInputWait: boolean;
  isWaitingForInput(): boolean;
  /** When output was last parsed (performance.now()), and the bytes still waiting to be. */
  readonly lastParsedAt: number;
  readonly pendingBytes: number;
  /** Bytes of output received so far. */
  readonly outputBytes: number;
  /**
   * Whether the session's interactive shell (or a copy it forked for a command, before the
   * command's program runs) holds the terminal without reading it: between commands.
   */
  shellBetweenCommands(): boolean;
}

/**
 * Resolves once a signal character can go to the terminal: at once unless the session's shell
 * is between commands, else when it reads the terminal again, a command's program has it, the
 * shell exits, or SHELL_HOLD_MS passed.
 */
export async function whenShellCanTakeInterrupt(
  target: InterruptTarget,
  signal?: AbortSignal,
  clock: InterruptClock = REAL_CLOCK,
): Promise<void> {
  const deadline = clock.now() + SHELL_HOLD_MS;
  while (target.status === 'running' && clock.now() < deadline && target.shellBetweenCommands()) {
    await clock.sleep(POLL_MS, signal);
  }
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
  clock: InterruptClock = REAL_CLOCK,
): Promise<void> {
  const { now } = clock;
  if (!target.detectsInputWait) return clock.sleep(INTERRUPT_PAUSE_MS, signal);
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
    await clock.sleep(POLL_MS, signal);
  }
}
