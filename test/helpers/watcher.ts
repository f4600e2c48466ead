/**
 * A person at a terminal running `agent-tty attach`: the built CLI in a real PTY (node-pty), its
 * output rendered by a second emulator (agent-tty's own Screen over @xterm/headless), so a test
 * reads what the person sees and types as they would.
 */
import pty from 'node-pty';
import { encodeKey } from '../../src/input/encode-key.js';
import { Screen } from '../../src/screen/screen.js';
import type { Snapshot } from '../../src/session/session.js';
import { SERVER } from './paths.js';
import { waitUntil } from './wait.js';

export interface WatcherTerminal {
  /** The person's screen as agent-tty's snapshot would describe it (rows trimmed the same way). */
  view(): Pick<Snapshot, 'screen' | 'styles' | 'spans' | 'cursor'>;
  /** The person's screen rows, untrimmed. */
  rows(): string[];
  /** Everything the CLI printed, raw. */
  output(): string;
  type(data: string): void;
  /** Presses a named key (Up, F5…) as this terminal would send it in the modes it is in now. */
  press(key: string): void;
  resize(cols: number, rows: number): void;
  /** Resolves with the CLI's exit code. */
  readonly exited: Promise<number>;
  exitCode(): number | undefined;
  waitForText(pattern: RegExp, timeoutMs?: number): Promise<void>;
  kill(): void;
}

export function openWatcher(
  args: string[],
  options: { env: Record<string, string>; cols: number; rows: number },
): WatcherTerminal {
  const screen = new Screen({
    cols: options.cols,
    rows: options.rows,
    scrollback: 0,
    onReply: () => {},
  });
  let raw = '';
  let code: number | undefined;
  const child = pty.spawn(process.execPath, [SERVER, 'attach', ...args], {
    name: 'xterm-256color',
    cols: options.cols,
    rows: options.rows,
    cwd: process.cwd(),
    env: { ...(process.env as Record<string, string>), ...options.env },
  });
  child.onData((data) => {
    raw += data;
    screen.write(Buffer.from(data, 'utf8'));
  });
  const exited = new Promise<number>((resolve) => {
    child.onExit(({ exitCode }) => {
      code = exitCode;
      resolve(exitCode);
    });
  });
  const rows = () => screen.rowTexts().map((r) => r.text.trimEnd());
  return {
    view() {
      const grid = screen.grid();
      let last = grid.screen.length;
      while (last > grid.cursor.row && grid.screen[last - 1] === '') last--;
      return {
        screen: grid.screen.slice(0, last),
        ...(grid.spans.length > 0 ? { styles: grid.styles, spans: grid.spans } : {}),
        cursor: grid.cursor,
      };
    },
    rows,
    output: () => raw,
    type: (data) => child.write(data),
    press: (key) => {
      const encoded = encodeKey({ key, ctrl: false, alt: false, shift: false }, screen.modes());
      if (!encoded.ok) throw new Error(encoded.reason);
      child.write(encoded.bytes);
    },
    resize: (cols, r) => {
      child.resize(cols, r);
      screen.resize(cols, r);
    },
    exited,
    exitCode: () => code,
    async waitForText(pattern, timeoutMs = 10_000) {
      await waitUntil(() => pattern.test(rows().join('\n')), `watcher shows ${pattern}`, timeoutMs);
    },
    kill: () => {
      try {
        child.kill();
      } catch {
        // Gone.
      }
    },
  };
}
