/**
 * Answers the probes that @xterm/headless leaves unanswered, so programs that ask do not wait for
 * a timeout: XTVERSION (`CSI > q`), the default foreground, background and cursor colours (OSC 10,
 * 11, 12 with `?`) and palette entries (OSC 4 with `?`). xterm itself answers DA1, DA2, DSR,
 * cursor position, DECRQM and DECRQSS; the kitty keyboard query is answered in terminal-modes.ts.
 * @see https://invisible-island.net/xterm/ctlseqs/ctlseqs.html (Operating System Commands)
 */
import type { IDisposable, Terminal } from './xterm.js';

const DEFAULT_FOREGROUND = 0xffffff;
const DEFAULT_BACKGROUND = 0x000000;
const DEFAULT_CURSOR = 0xffffff;

/** xterm.js's default 16-colour theme. */
const ANSI16 = [
  0x2e3436, 0xcc0000, 0x4e9a06, 0xc4a000, 0x3465a4, 0x75507b, 0x06989a, 0xd3d7cf, 0x555753,
  0xef2929, 0x8ae234, 0xfce94f, 0x729fcf, 0xad7fa8, 0x34e2e2, 0xeeeeec,
];

/** RGB of palette entry `index` (0-255): 16 theme colours, a 6x6x6 cube, 24 greys. */
export function paletteColor(index: number): number {
  if (index < 16) return ANSI16[index] as number;
  if (index < 232) {
    const i = index - 16;
    const level = (v: number) => (v === 0 ? 0 : 55 + v * 40);
    return (level(Math.floor(i / 36)) << 16) | (level(Math.floor(i / 6) % 6) << 8) | level(i % 6);
  }
  const grey = 8 + (index - 232) * 10;
  return (grey << 16) | (grey << 8) | grey;
}

/** X11 colour spec with 16 bits per channel, as xterm reports: rgb:rrrr/gggg/bbbb. */
export function x11Color(rgb: number): string {
  const channel = (v: number) => {
    const hex = v.toString(16).padStart(2, '0');
    return hex + hex;
  };
  return `rgb:${channel((rgb >> 16) & 0xff)}/${channel((rgb >> 8) & 0xff)}/${channel(rgb & 0xff)}`;
}

const DYNAMIC_COLORS = [DEFAULT_FOREGROUND, DEFAULT_BACKGROUND, DEFAULT_CURSOR];
const ST = '\x1b\\';

export function installProbeReplies(
  term: Terminal,
  reply: (data: string) => void,
  version: string,
): IDisposable[] {
  const parser = term.parser;
  const dynamic = (first: number) => (data: string) => {
    // OSC 10;?;? asks for 10 and then 11: each parameter is the next colour in turn.
    const parts = data.split(';');
    if (!parts.includes('?')) return false; // a colour change: xterm handles it
    parts.forEach((part, i) => {
      const which = first + i;
      const color = DYNAMIC_COLORS[which - 10];
      if (part === '?' && color !== undefined) reply(`\x1b]${which};${x11Color(color)}${ST}`);
    });
    return true;
  };
  return [
    parser.registerCsiHandler({ prefix: '>', final: 'q' }, () => {
      reply(`\x1bP>|agent-tty(${version})${ST}`);
      return true;
    }),
    parser.registerOscHandler(10, dynamic(10)),
    parser.registerOscHandler(11, dynamic(11)),
    parser.registerOscHandler(12, dynamic(12)),
    parser.registerOscHandler(4, (data) => {
      const parts = data.split(';');
      if (!parts.includes('?')) return false;
      for (let i = 0; i + 1 < parts.length; i += 2) {
        const index = Number(parts[i]);
        if (parts[i + 1] === '?' && Number.isInteger(index) && index >= 0 && index < 256) {
          reply(`\x1b]4;${index};${x11Color(paletteColor(index))}${ST}`);
        }
      }
      return true;
    }),
  ];
}
