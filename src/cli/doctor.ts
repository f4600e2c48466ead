/**
 * `agent-tty doctor`'s verdicts, pure: what each check found, as one line a person can act on
 * (ok, or the problem and how to fix it), and the exit code (0 when every check passed). The
 * probes that gather the facts are in doctor-command.ts.
 */

export interface CheckResult {
  /** Short name of what was checked: node, node-pty, shell, attach, /proc. */
  readonly name: string;
  readonly ok: boolean;
  /** What was found. */
  readonly detail: string;
  /** How to fix it, for a problem. */
  readonly fix?: string;
}

export const MIN_NODE_MAJOR = 20;
/** bash gets command marks from 4.4 on (PS0); see spec/tools.md (Command marks). */
const MIN_BASH: readonly [number, number] = [4, 4];
const MARKED_SHELLS = ['bash', 'zsh', 'fish'] as const;
export type MarkedShellName = (typeof MARKED_SHELLS)[number];

const SHELL_FIX =
  'set SHELL to bash (4.4 or newer), zsh or fish, or pass one as terminal_start shell';

export function nodeCheck(version: string): CheckResult {
  const major = Number(version.replace(/^v/, '').split('.')[0]);
  return major >= MIN_NODE_MAJOR
    ? { name: 'node', ok: true, detail: `Node.js ${version}` }
    : {
        name: 'node',
        ok: false,
        detail: `Node.js ${version} is too old: agent-tty needs ${MIN_NODE_MAJOR} or newer`,
        fix: `install Node.js ${MIN_NODE_MAJOR} or newer and reinstall agent-tty with it`,
      };
}

/** The shell a name (a path's last part) is, when it is one that gets command marks. */
export function markedShellName(file: string): MarkedShellName | undefined {
  const name = file.slice(file.lastIndexOf('/') + 1);
  return (MARKED_SHELLS as readonly string[]).includes(name)
    ? (name as MarkedShellName)
    : undefined;
}

/**
 * The version in a shell's `--version` output ("GNU bash, version 5.2.15(1)-release",
 * "zsh 5.9 (x86_64-debian-linux-gnu)", "fish, version 3.6.0"), as numbers.
 */
export function parseShellVersion(output: string): number[] | undefined {
  const match = /(?:version\s+|^zsh\s+)(\d+(?:\.\d+)*)/m.exec(output);
  return match ? (match[1] as string).split('.').map(Number) : undefined;
}

/** What the shell facts mean: `found` is the resolved path, `versionOutput` its --version. */
export function shellCheck(facts: {
  readonly shell: string | undefined;
  readonly found: string | undefined;
  readonly versionOutput: string | undefined;
}): CheckResult {
  const { shell, found, versionOutput } = facts;
  const problem = (detail: string, fix = SHELL_FIX): CheckResult => ({
    name: 'shell',
    ok: false,
    detail,
    fix,
  });
  if (shell === undefined || shell === '') {
    return problem('SHELL is not set: sessions start /bin/sh, which gets no command marks');
  }
  if (found === undefined) {
    return problem(`SHELL is ${shell}, which is not an executable file`);
  }
  const kind = markedShellName(found);
  if (kind === undefined) {
    return problem(`SHELL is ${shell}, which gets no command marks (bash, zsh and fish do)`);
  }
  const version = versionOutput === undefined ? undefined : parseShellVersion(versionOutput);
  if (version === undefined) {
    return problem(`SHELL is ${found}, whose version could not be read (${kind} --version)`);
  }
  const text = version.join('.');
  if (kind === 'bash' && compareVersions(version, MIN_BASH) < 0) {
    return problem(
      `SHELL is ${found}, bash ${text}: command marks need bash ${MIN_BASH.join('.')} or newer`,
      'install bash 4.4 or newer (or use zsh or fish) and set SHELL to it',
    );
  }
  return { name: 'shell', ok: true, detail: `${found}, ${kind} ${text}, with command marks` };
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** One line per check (`ok` or `problem`, the name, what was found, the fix), and a summary. */
export function formatReport(results: readonly CheckResult[]): {
  readonly text: string;
  readonly exitCode: number;
} {
  const width = Math.max(...results.map((r) => r.name.length));
  const lines = results.map((r) => {
    const head = `${r.ok ? 'ok     ' : 'problem'} ${r.name.padEnd(width)} `;
    return r.ok || r.fix === undefined ? `${head}${r.detail}` : `${head}${r.detail}; fix: ${r.fix}`;
  });
  const problems = results.filter((r) => !r.ok).length;
  lines.push(
    problems === 0
      ? `all ${results.length} checks passed`
      : `${problems} of ${results.length} checks found a problem`,
  );
  return { text: lines.join('\n'), exitCode: problems === 0 ? 0 : 1 };
}
