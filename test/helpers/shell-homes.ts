/**
 * Fresh home directories for shells under test, so the real home is never read: each holds the
 * startup files a test gives it, and the environment that points a shell at it. Also whether a
 * shell is there to test, and old enough to print command marks.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { which } from './programs.js';

export class ShellHomes {
  private readonly _homes: string[] = [];

  /** A fresh HOME holding `files` (path → text). */
  create(files: Record<string, string>): string {
    const home = mkdtempSync(join(tmpdir(), 'agent-tty-marks-home-'));
    this._homes.push(home);
    // fish creates these on start; two fish started at once in one HOME race to (and one fails).
    // Without generated_completions, fish's first run spends a minute of CPU generating them.
    for (const dir of ['.local/fish/generated_completions', '.config/fish']) {
      mkdirSync(join(home, dir), { recursive: true });
    }
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(home, path)), { recursive: true });
      writeFileSync(join(home, path), text);
    }
    return home;
  }

  removeAll(): void {
    for (const home of this._homes.splice(0)) rmSync(home, { recursive: true, force: true });
  }
}

/** The environment that makes a shell read its startup files from `home`. */
export function homeEnv(home: string): Record<string, string> {
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local'),
  };
}

/** bash prints marks from 4.4 on (PS0); macOS ships 3.2. */
function bashTooOld(): string | false {
  const version = execFileSync('bash', ['-c', 'echo $BASH_VERSION'], { encoding: 'utf8' });
  const [major = 0, minor = 0] = version.trim().split('.').map(Number);
  return major > 4 || (major === 4 && minor >= 4)
    ? false
    : `bash ${major}.${minor} is older than 4.4`;
}

/** A node:test `skip` value: false when `shell` is installed and prints marks, else the reason. */
export function skipUnlessShell(shell: string): string | false {
  if (!which(shell)) return `${shell} is not installed`;
  return shell === 'bash' ? bashTooOld() : false;
}
