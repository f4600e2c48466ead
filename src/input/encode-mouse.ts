/**
 * encodeMouse(event, modes): the report xterm would send for a mouse event, for the tracking mode
 * (X10, normal, button-event, any-event) and the coordinate encoding (default, UTF-8, SGR, urxvt)
 * the program selected. Pure. Coordinates a legacy encoding cannot carry are refused, never
 * wrapped into garbage.
 * @see spec/keys.md (Mouse)
 * @see https://invisible-island.net/xterm/ctlseqs/ctlseqs.html (Mouse Tracking)
 */
import type { MouseEncoding, MouseTracking } from '../shared/modes.js';

export type MouseButton = 'left' | 'middle' | 'right';
export type WheelDirection = 'up' | 'down' | 'left' | 'right';

export interface MouseReport {
  readonly kind: 'press' | 'release' | 'wheel';
  readonly button: MouseButton;
  readonly direction: WheelDirection;
  /** 1-based cell. */
  readonly row: number;
  readonly column: number;
  readonly ctrl: boolean;
  readonly alt: boolean;
  readonly shift: boolean;
}

export interface MouseModes {
  readonly mouseTracking: MouseTracking;
  readonly mouseEncoding: MouseEncoding;
}

export type MouseEncodingResult =
  | { readonly ok: true; readonly bytes: Uint8Array }
  | {
      readonly ok: false;
      readonly code: 'MOUSE_NOT_ENABLED' | 'OUT_OF_BOUNDS' | 'INVALID_ARGUMENT';
      readonly reason: string;
    };

/** Largest coordinate each encoding can carry. */
const MAX_COORDINATE: Record<MouseEncoding, number> = {
  default: 223,
  utf8: 2015,
  sgr: Number.MAX_SAFE_INTEGER,
  urxvt: Number.MAX_SAFE_INTEGER,
  'sgr-pixels': 0,
};

const BUTTON_CODE: Record<MouseButton, number> = { left: 0, middle: 1, right: 2 };
const WHEEL_CODE: Record<WheelDirection, number> = { up: 64, down: 65, left: 66, right: 67 };

const fail = (code: 'MOUSE_NOT_ENABLED' | 'OUT_OF_BOUNDS' | 'INVALID_ARGUMENT', reason: string) =>
  ({ ok: false, code, reason }) as const;

export function encodeMouse(report: MouseReport, modes: MouseModes): MouseEncodingResult {
  const { mouseTracking: tracking, mouseEncoding: encoding } = modes;
  if (tracking === 'none') {
    return fail('MOUSE_NOT_ENABLED', 'the program has not enabled mouse reporting');
  }
  if (encoding === 'sgr-pixels') {
    return fail(
      'INVALID_ARGUMENT',
      'the program selected SGR pixel coordinates (mode 1016), which cell-based mouse actions cannot produce; use key actions instead',
    );
  }
  if (tracking === 'x10') {
    if (report.kind !== 'press') {
      return fail(
        'INVALID_ARGUMENT',
        report.kind === 'wheel'
          ? 'X10 mouse mode (9) reports button presses only, not the wheel; scroll with key actions (PageUp, PageDown, Up, Down) instead'
          : 'X10 mouse mode (9) reports button presses only, not releases; send a click or a press instead',
      );
    }
    if (report.ctrl || report.alt || report.shift) {
      return fail(
        'INVALID_ARGUMENT',
        'X10 mouse mode (9) does not report modifiers; send the event without modifiers',
      );
    }
  }
  const limit = MAX_COORDINATE[encoding];
  if (report.row > limit || report.column > limit) {
    return fail(
      'OUT_OF_BOUNDS',
      `the program's ${encoding} mouse encoding carries coordinates up to ${limit}, and it did not select SGR (1006) for larger screens; use a row and a column up to ${limit}`,
    );
  }
  let code = report.kind === 'wheel' ? WHEEL_CODE[report.direction] : BUTTON_CODE[report.button];
  if (tracking !== 'x10') {
    code |= (report.shift ? 4 : 0) | (report.alt ? 8 : 0) | (report.ctrl ? 16 : 0);
  }
  const x = report.column;
  const y = report.row;
  if (encoding === 'sgr') {
    const final = report.kind === 'release' ? 'm' : 'M';
    return { ok: true, bytes: Buffer.from(`\x1b[<${code};${x};${y}${final}`, 'latin1') };
  }
  // Legacy forms cannot say which button was released: release is button code 3.
  if (report.kind === 'release') code = (code & ~3) | 3;
  if (encoding === 'urxvt') {
    return { ok: true, bytes: Buffer.from(`\x1b[${32 + code};${x};${y}M`, 'latin1') };
  }
  if (encoding === 'utf8') {
    const chars = String.fromCodePoint(32 + code, 32 + x, 32 + y);
    return { ok: true, bytes: Buffer.concat([Buffer.from('\x1b[M'), Buffer.from(chars, 'utf8')]) };
  }
  return { ok: true, bytes: Uint8Array.from([0x1b, 0x5b, 0x4d, 32 + code, 32 + x, 32 + y]) };
}
