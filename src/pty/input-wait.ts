/**
 * Whether a terminal's foreground program is blocked waiting for terminal input, read from /proc
 * without spawning anything but `stty` (Linux only; elsewhere the probe is unavailable and
 * settlement falls back to the quiet interval). The program waits when every process of the
 * foreground process group is asleep, one of its threads waits on the terminal, and nothing else
 * can wake any of them on its own (group-wait.ts, thread-wait.ts, wake-sources.ts): curl, node or
 * python event loops working are busy, not asking. The probe also tells how long such a wait may
 * last, whether input written has been read since (sleep-count.ts), and whether the rest of the
 * terminal's session could still print (others-idle.ts, for waits that end early when the program
 * asks for input, session/early-stop.ts).
 * @see spec/guarantees.md (Settlement: the input-wait signal; terminal_input: early stop)
 */
import { foregroundGroup, leaderInForeground } from './foreground-group.js';
import { cpuMsOf, type GroupWait, judgeGroup } from './group-wait.js';
import { othersIdle } from './others-idle.js';
import { PROC_READER } from './proc-reader.js';
import { readSleepCount } from './sleep-count.js';
import { createTerminalModeReader, type TerminalModeReader } from './terminal-mode.js';
import { SYSCALLS, SYSTEM_CLOCKS } from './wait-syscalls.js';

/** A wait for input, as the probe sees it: the group's verdict without the waiting process. */
export type InputWait = Omit<GroupWait, 'waiterPid'>;

export interface InputWaitProbe {
  /** Whether the foreground program waits for input (and has consumed input sent since markInput). */
  isWaiting(): boolean;
  /** The foreground program's wait for input, when isWaiting() would say it waits. */
  inputWait(): InputWait | undefined;
  /**
   * Whether the session leader itself (an interactive shell) waits for input on the terminal,
   * whatever else its process group does (fish runs its background jobs in its own group).
   */
  leaderWaits(): boolean;
  /**
   * Whether no process of the terminal's session outside the foreground process group can print
   * on its own: each is stopped, a zombie, or an ancestor of the foreground group (the shell
   * waiting for its foreground job).
   */
  othersIdle(): boolean;
  /**
   * Call just before writing input (after the write, a program on another core may already have
   * read it and slept again): later waits count only once the program has slept since.
   */
  markInput(): void;
  /** CPU time the foreground process group has used so far (all threads), when it has one. */
  foregroundCpuMs(): number | undefined;
  /** Stops reading the terminal's mode. */
  dispose(): void;
}

/** A probe for the terminal whose session leader is `leaderPid`, or undefined off Linux. */
export function createInputWaitProbe(
  leaderPid: number,
  ttyPath: string,
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
  mode: TerminalModeReader | undefined = undefined,
): InputWaitProbe | undefined {
  const syscalls = SYSCALLS[arch];
  if (platform !== 'linux' || !syscalls || !ttyPath) return undefined;
  const terminalMode = mode ?? createTerminalModeReader(ttyPath);
  let marks: Map<number, number> | undefined;
  const judge = (leaderOnly: boolean): InputWait | undefined => {
    const group = leaderOnly ? leaderInForeground(leaderPid) : foregroundGroup(leaderPid);
    const wait = judgeGroup(group, {
      ttyPath,
      syscalls,
      reader: PROC_READER,
      clocks: SYSTEM_CLOCKS,
      isPasswordMode: () => terminalMode.isPasswordMode(),
    });
    if (wait === undefined) return undefined;
    const mark = marks?.get(wait.waiterPid);
    if (mark !== undefined) {
      // The program must have slept since the input was written, or it has not read it yet.
      if (readSleepCount(wait.waiterPid) <= mark) return undefined;
      marks = undefined;
    }
    const { waiterPid: _, ...rest } = wait;
    return rest;
  };
  const inputWait = (): InputWait | undefined => judge(false);
  return {
    markInput() {
      const group = foregroundGroup(leaderPid);
      marks = new Map(group.map(({ pid }) => [pid, readSleepCount(pid)]));
    },
    isWaiting: () => inputWait() !== undefined,
    inputWait,
    leaderWaits: () => judge(true) !== undefined,
    othersIdle: () => othersIdle(leaderPid),
    foregroundCpuMs() {
      const group = foregroundGroup(leaderPid);
      return group.length === 0 ? undefined : cpuMsOf(group);
    },
    dispose: () => terminalMode.dispose(),
  };
}
