/**
 * What a session can tell of its program from outside, through /proc (Linux): whether it waits
 * for input (pty/input-wait.ts), the CPU its foreground group used, which process is in the
 * foreground. Every answer is "no" (or undefined) once the program has exited or the session is
 * closed, and everywhere the probe cannot run.
 */
import { type ForegroundProcess, foregroundProcess } from '../pty/foreground.js';
import { leaderOrCopyInForeground } from '../pty/foreground-group.js';
import { createInputWaitProbe, type InputWait, type InputWaitProbe } from '../pty/input-wait.js';
import { makeTextSafe } from '../screen/text-safety.js';

export class ProgramWatch {
  private readonly _probe: InputWaitProbe | undefined;

  /**
   * `enabled` false turns the probe off (settlement then uses the quiet interval only); `live`
   * says whether the program runs and the session is open.
   */
  constructor(
    private readonly _pid: number,
    ttyPath: string,
    enabled: boolean,
    private readonly _live: () => boolean,
  ) {
    this._probe = enabled ? createInputWaitProbe(_pid, ttyPath) : undefined;
  }

  /** Whether this session can tell when its program waits for input (Linux; probe on). */
  get detects(): boolean {
    return this._probe !== undefined;
  }

  /** Whether the foreground program waits for input (and has read the input sent so far). */
  isWaiting(): boolean {
    return this._live() && this._probe?.isWaiting() === true;
  }

  /** Whether the session's own program (its shell) waits for input, whatever else runs. */
  leaderWaits(): boolean {
    return this._live() && this._probe?.leaderWaits() === true;
  }

  /**
   * Whether the session's own program, or a copy it forked that has not become another program
   * yet, holds the terminal (its process group is the foreground one) without reading it since the
   * last input: a shell between a command and its next prompt, or starting a command.
   */
  shellBetweenCommands(): boolean {
    if (!this._live() || this._probe === undefined) return false;
    return (
      leaderOrCopyInForeground(this._pid) && !this._probe.leaderWaits() && !this._probe.isWaiting()
    );
  }

  /** The foreground program's wait for input (how long, the CPU its group used), if it waits. */
  inputWait(): InputWait | undefined {
    return this._live() ? this._probe?.inputWait() : undefined;
  }

  /** Whether nothing else in the terminal's session can print on its own (see the probe). */
  othersIdle(): boolean {
    return this._live() && this._probe?.othersIdle() === true;
  }

  /** CPU time the foreground process group has used so far, where it can be read. */
  foregroundCpuMs(): number | undefined {
    return this._live() ? this._probe?.foregroundCpuMs() : undefined;
  }

  /** The terminal's foreground process when it is not the session's own program. */
  foreground(): ForegroundProcess | undefined {
    if (!this._live()) return undefined;
    const found = foregroundProcess(this._pid);
    // The shell itself reading the terminal is in the foreground, whatever its group holds (fish
    // runs background jobs in its own group).
    if (found && this.leaderWaits()) return undefined;
    // A program names itself (prctl): shown with the stand-ins of screen text.
    return found && { pid: found.pid, command: makeTextSafe(found.command) };
  }

  /**
   * True once all output the program wrote so far has been received (an output barrier) and
   * parsed, and it still waits for input.
   */
  async confirm(
    pty: { barrier(): Promise<boolean> },
    screen: { whenParsed(): Promise<void> },
  ): Promise<boolean> {
    if (!this.isWaiting()) return false;
    if (!(await pty.barrier())) return false;
    await screen.whenParsed();
    return this.isWaiting();
  }

  /** Call just before input is written: later waits count once the program has read it. */
  markInput(): void {
    this._probe?.markInput();
  }

  dispose(): void {
    this._probe?.dispose();
  }
}
