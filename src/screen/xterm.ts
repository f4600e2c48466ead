/**
 * The only import of @xterm/headless and its Unicode 11 addon: creates the emulator, gives its
 * types and its character widths to the rest of screen/. What its public API does not expose is
 * read by xterm-terminal.ts and xterm-buffers.ts (through xterm-core.ts), and the one internal
 * that rewrapping rows needs faster is replaced by xterm-cell-copy.ts. @xterm/headless is pinned
 * exactly, and each internal read is shape-checked with a public-API fallback, so a changed
 * internal degrades speed, never correctness.
 */
import unicode11 from '@xterm/addon-unicode11';
import headless from '@xterm/headless';
import { installCellCopy } from './xterm-cell-copy.js';

export type Terminal = headless.Terminal;
export type IBufferCell = headless.IBufferCell;
export type IBufferLine = headless.IBufferLine;
export type IDisposable = headless.IDisposable;

export interface CreateTerminalOptions {
  readonly cols: number;
  readonly rows: number;
  readonly scrollback: number;
}

/**
 * The Unicode 11 width tables, taken from the addon through the registration call it makes on
 * activation, so the output filter and every terminal share one provider.
 */
const unicodeProvider = ((): headless.IUnicodeVersionProvider => {
  let provider: headless.IUnicodeVersionProvider | undefined;
  const registrar = {
    unicode: { register: (p: headless.IUnicodeVersionProvider) => (provider = p) },
  };
  new unicode11.Unicode11Addon().activate(registrar as unknown as Terminal);
  if (!provider) throw new Error('@xterm/addon-unicode11 registered no provider');
  return provider;
})();

/** Cells code point `cp` takes (0, 1 or 2) by the emulator's tables; 0 joins the cell before. */
export function cellWidth(cp: number): number {
  return unicodeProvider.wcwidth(cp);
}

export function createTerminal(options: CreateTerminalOptions): Terminal {
  const term = new headless.Terminal({
    cols: options.cols,
    rows: options.rows,
    scrollback: options.scrollback,
    allowProposedApi: true,
    convertEol: false,
    logLevel: 'off',
  });
  term.unicode.register(unicodeProvider);
  term.unicode.activeVersion = unicodeProvider.version;
  installCellCopy(term);
  return term;
}
