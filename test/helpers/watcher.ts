/**
 * A person at a terminal running `agent-tty attach`: the built CLI in a real PTY (node-pty), its
 * output rendered by a second emulator (agent-tty's own Screen over @xterm/headless), so a test
 * reads what the person sees and types as they would. A bare @xterm/headless terminal is fed the
 * same bytes, for what reaches the person's terminal as it is (Screen makes text safe as it
 * reads it).
 */
import pty from 'node-pty';
import { encodeKey } from '../../src/input/encode-key.js';
import { Screen } from '../../src/screen/screen.js';
import { createTerminal } from '../../src/screen/xterm.js';
import type { Snapshot } from '../../src/session/session.js';
import { SERVER } from './paths.js';
import { waitUntil } from './wait.js';

export interface WatcherTerminal {
  /** The person's screen as agent-tty's snapshot would describe it (rows trimmed the same way). */
  view(): Pick<Snapshot, 'screen' | 'styles' | 'spans' | 'cursor'>;
  /** The person's screen rows, untrimmed. */
  rows(): string[];
  /**
   * The person's terminal's rows as its cells hold them, characters as they came (nothing made
   * safe), trailing blanks dropped, once what arrived so far is parsed; and its cursor, 1-based.
   */
  rawScreen(): Promise<{ rows: string[]; cursor: { row: number; column: number } }>;
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

/**
 * `cols` x `rows`: the size of the person's screen. With `sizeUnknown`, the terminal reports 0x0
 * until the first `resize` (as `docker exec -t` and some `kubectl exec -t` give it at first): a
 * shell sets that size with stty, then runs the CLI in its place.
 */
export function openWatcher(
  args: string[],
  options: { env: Record<string, string>; cols: number; rows: number; sizeUnknown?: boolean },
): WatcherTerminal {
  const screen = new Screen({
    cols: options.cols,
    rows: options.rows,
    scrollback: 0,
    onReply: () => {},
  });
  const bare = createTerminal({ cols: options.cols, rows: options.rows, scrollback: 0 });
  let raw = '';
  let code: number | undefined;
  const command = [process.execPath, SERVER, 'attach', ...args];
  const [file, ...argv] = options.sizeUnknown
    ? ['/bin/sh', '-c', 'stty rows 0 cols 0 && exec "$@"', 'sh', ...command]
    : command;
  const child = pty.spawn(file as string, argv, {
    name: 'xterm-256color',
    cols: options.cols,
    rows: options.rows,
    cwd: process.cwd(),
    env: { ...(process.env as Record<string, string>), ...options.env },
  });
  child.onData((data) => {
    raw += data;
    screen.write(Buffer.from(data, 'utf8'));
    bare.write(data);
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
    rawScreen: () =>
      new Promise((resolve) =>
        bare.write('', () => {
          const buffer = bare.buffer.active;
          const rows = Array.from(
            { length: bare.rows },
            (_, y) =>
              buffer
                .getLine(buffer.baseY + y)
                ?.translateToString(true)
                .trimEnd() ?? '',
          );
          resolve({ rows, cursor: { row: buffer.cursorY + 1, column: buffer.cursorX + 1 } });
        }),
      ),
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
      bare.resize(cols, r);
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
