/**
 * The terminal modes a program selects, as types shared by screen/ (which tracks them, in
 * terminal-modes.ts) and input/ (whose encoders take them). Types only: no code.
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
