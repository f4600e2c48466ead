/**
 * What can be known of a batch before its first byte is sent: each key can be encoded in the
 * keyboard mode in force, each mouse event is inside the screen and reportable, a command wait
 * has command marks to wait for. Checked again when the batch runs (it may have waited behind
 * others in the queue).
 */
import { type Action, type ActionAt, actionAt, actionError } from '../input/actions.js';
import { encodeKey } from '../input/encode-key.js';
import { encodeMouse, type MouseReport } from '../input/encode-mouse.js';
import type { MouseTracking } from '../screen/terminal-modes.js';
import type { TerminalError } from '../shared/errors.js';
import type { Session } from './session.js';

/**
 * Checks, before the first byte is sent, everything that can be known in advance: each key can be
 * encoded in the current keyboard mode, each mouse event is inside the screen and reportable.
 */
export function precheckBatch(
  session: Session,
  actions: readonly Action[],
  at: (index: number) => ActionAt = actionAt,
): void {
  session.assertRunning();
  checkActions(session, actions, at);
}

/** The keys and mouse events of a batch against the session's modes and size now. */
export function checkActions(
  session: Session,
  actions: readonly Action[],
  at: (index: number) => ActionAt,
): void {
  const modes = session.screen.modes();
  actions.forEach((action, index) => {
    if (action.type === 'expect' && action.condition.kind === 'command') {
      if (!session.hasCommandMarks) throw noCommandMarksError(at(index));
    } else if (action.type === 'key') {
      const encoded = encodeKey(action.press, modes);
      if (!encoded.ok) throw actionError(at(index), encoded.reason, 'INVALID_KEY');
    } else if (action.type === 'mouse') {
      if (action.row > session.screen.rows || action.column > session.screen.cols) {
        throw actionError(
          at(index),
          `cell (row ${action.row}, column ${action.column}) is outside the ${session.screen.cols}x${session.screen.rows} screen; use a row from 1 to ${session.screen.rows} and a column from 1 to ${session.screen.cols}`,
          'OUT_OF_BOUNDS',
          { cols: session.screen.cols, rows: session.screen.rows },
        );
      }
      for (const report of mouseReports(action, modes.mouseTracking)) {
        const encoded = encodeMouse(report, modes);
        if (!encoded.ok) throw mouseError(at(index), encoded.code, encoded.reason);
      }
    }
  });
}

/** The reports a mouse action makes; a click is a press and a release, only a press in X10. */
export function mouseReports(
  action: Extract<Action, { type: 'mouse' }>,
  tracking: MouseTracking,
): MouseReport[] {
  const base = {
    button: action.button,
    direction: action.direction,
    row: action.row,
    column: action.column,
    ...action.modifiers,
  };
  switch (action.event) {
    case 'press':
      return [{ ...base, kind: 'press' }];
    case 'release':
      return [{ ...base, kind: 'release' }];
    case 'click':
      return tracking === 'x10'
        ? [{ ...base, kind: 'press' }]
        : [
            { ...base, kind: 'press' },
            { ...base, kind: 'release' },
          ];
    case 'wheel':
      return Array.from({ length: action.count }, () => ({ ...base, kind: 'wheel' as const }));
    default:
      return action.event satisfies never;
  }
}

/** What MOUSE_NOT_ENABLED tells an agent to do instead (spec/errors.md says the same). */
export const MOUSE_NOT_ENABLED_ADVICE =
  "turn the program's mouse support on (for example vim with :set mouse=a), or use the keyboard: key actions for arrow keys and Enter, or the program's own keys";

/** A command wait in a session whose program has no command marks. */
function noCommandMarksError(at: ActionAt): TerminalError {
  return actionError(
    at,
    'this session has no command marks (only interactive bash, zsh and fish shells started by terminal_start without a command get them, unless the server runs with --no-command-marks); wait for the prompt instead: {"type":"wait","pattern":"[$#%>] $"}',
    'INVALID_ARGUMENT',
  );
}

export function mouseError(
  at: ActionAt,
  code: 'MOUSE_NOT_ENABLED' | 'OUT_OF_BOUNDS' | 'INVALID_ARGUMENT',
  reason: string,
): TerminalError {
  const hint = code === 'MOUSE_NOT_ENABLED' ? `; ${MOUSE_NOT_ENABLED_ADVICE}` : '';
  return actionError(at, `${reason}${hint}`, code);
}
