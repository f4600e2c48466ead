/**
 * The terminal's own mode, read with `stty` (no Node API reads termios): whether it is in the
 * mode password prompts put it in, echo off with line editing on (sudo, su, passwd, ssh,
 * getpass). The input-wait probe asks only when it meets a process whose waits the user may not
 * read; the answer is refreshed in the background at most every MODE_REFRESH_MS and trusted for
 * MODE_FRESH_MS, so asking is synchronous and cheap.
 * @see spec/tools.md (Early stop)
 */
import { execFile } from 'node:child_process';

/** Least time between two reads of the mode. */
export const MODE_REFRESH_MS = 100;
/** How long a read of the mode is trusted. */
export const MODE_FRESH_MS = 250;
/** A read that has not answered by then is abandoned. */
const STTY_TIMEOUT_MS = 1000;

/** c_lflag bits (Linux): ECHO and ICANON. */
const ECHO = 0o10;
const ICANON = 0o2;

/** Whether `stty -g` output (iflag:oflag:cflag:lflag:…, hex) shows echo off and ICANON on. */
export function isPasswordModeText(sttyG: string): boolean | undefined {
  const fields = sttyG.trim().split(':');
  if (fields.length < 4 || !/^[0-9a-f]+$/i.test(fields[3] as string)) return undefined;
  const lflag = Number.parseInt(fields[3] as string, 16);
  return (lflag & ECHO) === 0 && (lflag & ICANON) !== 0;
}

export interface TerminalModeReader {
  /** The last fresh reading (false while none is); starts a new read when due. */
  isPasswordMode(): boolean;
  dispose(): void;
}

export type ReadMode = (ttyPath: string, done: (sttyG: string | undefined) => void) => void;

const readWithStty: ReadMode = (ttyPath, done) => {
  execFile(
    'stty',
    ['-g', '-F', ttyPath],
    { timeout: STTY_TIMEOUT_MS, env: { PATH: '/usr/bin:/bin', LC_ALL: 'C' } },
    (err, stdout) => done(err ? undefined : stdout),
  );
};

export function createTerminalModeReader(
  ttyPath: string,
  readMode: ReadMode = readWithStty,
  now: () => number = () => performance.now(),
): TerminalModeReader {
  let value: boolean | undefined;
  let readAt = Number.NEGATIVE_INFINITY;
  let startedAt = Number.NEGATIVE_INFINITY;
  let reading = false;
  let disposed = false;
  return {
    isPasswordMode() {
      const t = now();
      if (!reading && !disposed && t - startedAt >= MODE_REFRESH_MS) {
        reading = true;
        startedAt = t;
        readMode(ttyPath, (text) => {
          reading = false;
          if (disposed) return;
          value = text === undefined ? undefined : isPasswordModeText(text);
          readAt = now();
        });
      }
      return value === true && t - readAt <= MODE_FRESH_MS;
    },
    dispose() {
      disposed = true;
    },
  };
}
