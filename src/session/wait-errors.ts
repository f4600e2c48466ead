/**
 * What a wait that ended without its condition fails with, and the advice the error gives, the
 * same for a terminal_input wait action and an `agent-tty test` step: WAIT_TIMEOUT at the
 * timeout, INPUT_REQUIRED when it ended early because the program waits for input. (A wait the
 * program's exit ended fails with the session's SESSION_EXITED, naming what it waited for.)
 * @see spec/errors.md
 */

import type { ExpectCondition } from '../input/actions.js';
import { formatDuration } from '../shared/duration.js';
import { TerminalError } from '../shared/errors.js';
import type { WaitOutcome } from './wait.js';

/** What a wait waited for, as its errors say it. */
export interface WaitSubject {
  /** What was awaited: "waited 300 ms for …", "… while waiting for …". */
  readonly what: string;
  /** What does not hold: "the program is waiting for input and …". */
  readonly unmet: string;
  /** Why it may not have come, in the timeout's advice. */
  readonly cause: string;
  /** Whether another pattern may be the remedy, besides a larger timeoutMs. */
  readonly isPattern: boolean;
  /** A command wait in a shell that printed no command marks: a larger timeoutMs cannot help. */
  readonly noMarks?: boolean | undefined;
}

const ASKS_ELSE = 'the program may be asking something else';

export function describeCondition(condition: ExpectCondition): string {
  return conditionSubject(condition).what;
}

/**
 * A wait action's condition as its errors say it. `marksSeen`: for a command wait, whether the
 * shell has printed any command mark.
 */
export function conditionSubject(condition: ExpectCondition, marksSeen = true): WaitSubject {
  if (condition.kind === 'exit') {
    const what = 'the program to exit';
    return { what, unmet: 'it has not exited', cause: ASKS_ELSE, isPattern: false };
  }
  if (condition.kind === 'command') {
    const what = "the shell's command to finish";
    const unmet = marksSeen
      ? 'its command has not finished'
      : 'its command has not finished (the shell has printed no command marks: wait for its prompt with a pattern instead)';
    const cause = 'the command may still be running, or be asking something';
    return { what, unmet, cause, isPattern: false, noMarks: !marksSeen };
  }
  return patternSubject(`/${condition.source}/`, condition.gone);
}

/** A wait for `shown` (a pattern, or text) to appear on the screen, or with `gone` to leave it. */
export function patternSubject(shown: string, gone: boolean): WaitSubject {
  return {
    what: `${shown} to ${gone ? 'leave the screen' : 'appear'}`,
    unmet: `${shown} ${gone ? 'is still on the screen' : 'has not appeared'}`,
    cause: ASKS_ELSE,
    isPattern: true,
  };
}

/**
 * The error of a wait that ended without its condition: WAIT_TIMEOUT or INPUT_REQUIRED, built
 * only here; undefined when the condition came.
 */
export function waitOutcomeError(
  outcome: Pick<WaitOutcome, 'reason' | 'quietMs'>,
  subject: WaitSubject,
  timeoutMs: number,
): TerminalError | undefined {
  if (outcome.reason === 'input') {
    const quietMs = outcome.quietMs ?? 0;
    return new TerminalError(
      'INPUT_REQUIRED',
      `the program is waiting for input and ${subject.unmet} (quiet for ${formatDuration(quietMs)}); read the attached screen and answer what it asks with terminal_input, or pass stopOnInput:false to wait anyway`,
      { quietMs },
    );
  }
  if (outcome.reason !== 'timeout') return undefined;
  const waited = `waited ${formatDuration(timeoutMs)} for ${subject.what}`;
  if (subject.noMarks) {
    return new TerminalError(
      'WAIT_TIMEOUT',
      `${waited}, and this shell has printed no command marks (its startup files may have replaced the hooks, or bash is older than 4.4), so a larger timeoutMs will not help; read the attached screen, then wait for the prompt with a pattern instead`,
      { timeoutMs },
    );
  }
  const change = subject.isPattern ? ' or change the pattern' : '';
  return new TerminalError(
    'WAIT_TIMEOUT',
    `${waited}; read the attached screen (${subject.cause}), then wait longer with a larger timeoutMs${change}`,
    { timeoutMs },
  );
}

/**
 * INVALID_ARGUMENT for a command wait with no command to wait for: nothing was ever typed into
 * the shell and none runs (right after it started).
 */
export function noCommandError(): TerminalError {
  return new TerminalError(
    'INVALID_ARGUMENT',
    'wait command:true has no command to wait for: nothing has been typed into this shell yet; send the command and Enter first, in the same batch before the wait (text, then key Enter, then the wait)',
    {},
  );
}
