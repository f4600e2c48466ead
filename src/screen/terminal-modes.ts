/**
 * Input-relevant modes a program selects, read from xterm where it tracks them and from parser
 * hooks where it does not: the mouse encoding (xterm implements only SGR), the kitty keyboard
 * protocol's flag stacks (one per screen, with push/pop/set and the `CSI ? u` query), xterm's
 * modifyOtherKeys level, and when a synchronized update began. Hooks observe and pass the
 * sequence on, except the kitty and modifyOtherKeys ones, which xterm does not know.
 * @see https://invisible-island.net/xterm/ctlseqs/ctlseqs.html (Mouse Tracking, XTMODKEYS)
 * @see https://sw.kovidgoyal.net/kitty/keyboard-protocol/
 */
import type { MouseEncoding, MouseTracking, TerminalModes } from '../shared/modes.js';
import type { IDisposable, Terminal } from './xterm.js';
import { isCursorHidden } from './xterm-terminal.js';

export type { MouseEncoding, MouseTracking, TerminalModes };

/** A synchronized update older than this is treated as abandoned, as kitty and others do. */
export const SYNC_UPDATE_TIMEOUT_MS = 1000;
const KITTY_STACK_LIMIT = 64;

const TRACKING: Record<string, MouseTracking> = {
  none: 'none',
  x10: 'x10',
  vt200: 'normal',
  drag: 'button',
  any: 'any',
};

const ENCODING_MODES: Record<number, MouseEncoding> = {
  1005: 'utf8',
  1006: 'sgr',
  1015: 'urxvt',
  1016: 'sgr-pixels',
};

export class ModeTracker {
  private _mouseEncoding: MouseEncoding = 'default';
  private _kitty: { main: number[]; alt: number[] } = { main: [0], alt: [0] };
  private _modifyOtherKeys = 0;
  private _syncSince = 0;
  private readonly _hooks: IDisposable[];

  constructor(
    private readonly _term: Terminal,
    private readonly _reply: (data: string) => void,
    private readonly _now: () => number = () => performance.now(),
  ) {
    const parser = _term.parser;
    this._hooks = [
      parser.registerCsiHandler({ prefix: '?', final: 'h' }, (p) => this._decset(p, true)),
      parser.registerCsiHandler({ prefix: '?', final: 'l' }, (p) => this._decset(p, false)),
      parser.registerCsiHandler({ prefix: '>', final: 'u' }, (p) => this._kittyPush(p)),
      parser.registerCsiHandler({ prefix: '<', final: 'u' }, (p) => this._kittyPop(p)),
      parser.registerCsiHandler({ prefix: '=', final: 'u' }, (p) => this._kittySet(p)),
      parser.registerCsiHandler({ prefix: '?', final: 'u' }, () => this._kittyQuery()),
      parser.registerCsiHandler({ prefix: '>', final: 'm' }, (p) => this._modifyKeys(p)),
      parser.registerCsiHandler({ prefix: '>', final: 'n' }, (p) => this._modifyKeysOff(p)),
      parser.registerEscHandler({ final: 'c' }, () => this._reset()),
      parser.registerCsiHandler({ intermediates: '!', final: 'p' }, () => this._softReset()),
    ];
  }

  modes(): TerminalModes {
    const m = this._term.modes;
    const alternate = this._term.buffer.active.type === 'alternate';
    return {
      applicationCursorKeys: m.applicationCursorKeysMode,
      applicationKeypad: m.applicationKeypadMode,
      bracketedPaste: m.bracketedPasteMode,
      focusEvents: m.sendFocusMode,
      mouseTracking: TRACKING[m.mouseTrackingMode] ?? 'none',
      mouseEncoding: this._mouseEncoding,
      kittyKeyboardFlags: this._kittyStack(alternate).at(-1) ?? 0,
      modifyOtherKeys: this._modifyOtherKeys,
      synchronizedUpdate: this.isSynchronizedUpdate(),
      cursorVisible: !isCursorHidden(this._term),
      alternateScreen: alternate,
    };
  }

  isSynchronizedUpdate(): boolean {
    return (
      this._term.modes.synchronizedOutputMode &&
      this._now() - this._syncSince < SYNC_UPDATE_TIMEOUT_MS
    );
  }

  dispose(): void {
    for (const h of this._hooks) h.dispose();
  }

  private _decset(params: (number | number[])[], on: boolean): boolean {
    for (const p of params) {
      const mode = typeof p === 'number' ? p : p[0];
      if (mode === undefined) continue;
      const encoding = ENCODING_MODES[mode];
      if (encoding) {
        if (on) this._mouseEncoding = encoding;
        else if (this._mouseEncoding === encoding) this._mouseEncoding = 'default';
      } else if (mode === 2026 && on && !this._term.modes.synchronizedOutputMode) {
        this._syncSince = this._now();
      }
    }
    return false; // let xterm apply the mode too
  }

  private _kittyStack(alternate = this._term.buffer.active.type === 'alternate'): number[] {
    return alternate ? this._kitty.alt : this._kitty.main;
  }

  private _kittyPush(params: (number | number[])[]): boolean {
    const stack = this._kittyStack();
    stack.push(first(params, 0) & 0x1f);
    if (stack.length > KITTY_STACK_LIMIT) stack.splice(1, 1);
    return true;
  }

  private _kittyPop(params: (number | number[])[]): boolean {
    const stack = this._kittyStack();
    const n = Math.max(1, first(params, 1));
    if (n > stack.length - 1) {
      stack.length = 1;
      stack[0] = 0;
    } else {
      stack.length -= n;
    }
    return true;
  }

  private _kittySet(params: (number | number[])[]): boolean {
    const stack = this._kittyStack();
    const flags = first(params, 0) & 0x1f;
    const mode = typeof params[1] === 'number' ? params[1] : 1;
    const top = stack.length - 1;
    const current = stack[top] ?? 0;
    stack[top] = mode === 2 ? current | flags : mode === 3 ? current & ~flags : flags;
    return true;
  }

  private _kittyQuery(): boolean {
    this._reply(`\x1b[?${this._kittyStack().at(-1) ?? 0}u`);
    return true;
  }

  private _modifyKeys(params: (number | number[])[]): boolean {
    if (first(params, 0) !== 4) return true; // other XTMODKEYS resources: accepted, not used
    const level = typeof params[1] === 'number' ? params[1] : 0;
    this._modifyOtherKeys = level >= 0 && level <= 2 ? level : 0;
    return true;
  }

  private _modifyKeysOff(params: (number | number[])[]): boolean {
    if (first(params, 0) === 4) this._modifyOtherKeys = 0;
    return true;
  }

  private _reset(): boolean {
    this._mouseEncoding = 'default';
    this._kitty = { main: [0], alt: [0] };
    this._modifyOtherKeys = 0;
    return false;
  }

  private _softReset(): boolean {
    this._mouseEncoding = 'default';
    this._modifyOtherKeys = 0;
    return false;
  }
}

function first(params: (number | number[])[], fallback: number): number {
  const p = params[0];
  const v = typeof p === 'number' ? p : p?.[0];
  return v === undefined || v < 0 ? fallback : v;
}
