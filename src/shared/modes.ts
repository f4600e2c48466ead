/**
 * The terminal modes a program selects, as types shared by screen/ (which tracks them, in
 * terminal-modes.ts), input/ (whose encoders take them) and attach/ (which sets them on a
 * watcher's terminal), and the modes a terminal starts in. No code.
 */

export type MouseTracking = 'none' | 'x10' | 'normal' | 'button' | 'any';
export type MouseEncoding = 'default' | 'utf8' | 'sgr' | 'urxvt' | 'sgr-pixels';

export interface TerminalModes {
  readonly applicationCursorKeys: boolean;
  readonly applicationKeypad: boolean;
  readonly bracketedPaste: boolean;
  readonly focusEvents: boolean;
  readonly mouseTracking: MouseTracking;
  readonly mouseEncoding: MouseEncoding;
  /** Current kitty keyboard protocol flags of the active screen (0: protocol off). */
  readonly kittyKeyboardFlags: number;
  /** xterm modifyOtherKeys level (0, 1 or 2). */
  readonly modifyOtherKeys: number;
  /** A synchronized update (DEC mode 2026) is in progress. */
  readonly synchronizedUpdate: boolean;
  readonly cursorVisible: boolean;
  readonly alternateScreen: boolean;
}

/** The modes of a terminal nothing has changed: what a reset returns to. */
export const INITIAL_MODES: TerminalModes = Object.freeze({
  applicationCursorKeys: false,
  applicationKeypad: false,
  bracketedPaste: false,
  focusEvents: false,
  mouseTracking: 'none',
  mouseEncoding: 'default',
  kittyKeyboardFlags: 0,
  modifyOtherKeys: 0,
  synchronizedUpdate: false,
  cursorVisible: true,
  alternateScreen: false,
});
