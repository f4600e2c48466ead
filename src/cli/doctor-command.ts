/**
 * `agent-tty doctor`: checks this install for a person, one line per check, exit 0 when all pass
 * and 1 otherwise. It gathers the facts (Node's version, a real PTY running `echo ok`, $SHELL and
 * its version, the attach socket directory, /proc on Linux); doctor.ts judges them. node-pty is
 * loaded here only, lazily, so a broken one is a finding rather than a crash.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { PTY_FIX, ptyUnavailableError } from '../pty/pty-unavailable.js';
import { resolveExecutable } from '../pty/spawnable.js';
import { formatDuration } from '../shared/duration.js';
import { type CheckResult, formatReport, nodeCheck, shellCheck } from './doctor.js';

const DOCTOR_USAGE = [
  'Usage: agent-tty doctor',
  '',
  'Checks this install: Node.js, node-pty (starts `echo ok` in a real terminal), your shell',
  '($SHELL) and its command marks, the attach socket directory, and /proc (Linux). Prints one',
  'line per check, with the fix for a problem; exits 0 when all pass, 1 otherwise.',
].join('\n');

/** How long the PTY check waits for `echo ok`, and a shell for its --version. */
const PROBE_TIMEOUT_MS = 5_000;

export interface DoctorDeps {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The attach socket directory, and its check (creates it 0700 when missing, as a server would). */
  readonly socketDir: string;
  readonly ensureSocketDir: (dir: string) => void;
}

/** Returns the process exit code. */
export async function runDoctorCommand(argv: readonly string[], deps: DoctorDeps): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${DOCTOR_USAGE}\n`);
    return 0;
  }
  if (argv.length > 0) {
    process.stderr.write(`agent-tty doctor: unknown argument ${argv[0]}\n${DOCTOR_USAGE}\n`);
    return 2;
  }
  const results: CheckResult[] = [
    nodeCheck(process.version),
    await ptyCheck(deps.env),
    shellFacts(deps.env),
    socketCheck(deps),
  ];
  if (process.platform === 'linux') results.push(await procCheck());
  const report = formatReport(results);
  process.stdout.write(`${report.text}\n`);
  return report.exitCode;
}

/** node-pty loads, and a real terminal runs `echo ok` and gives the output back. */
async function ptyCheck(env: DoctorDeps['env']): Promise<CheckResult> {
  let pty: typeof import('../pty/spawn.js');
  try {
    pty = await import('../pty/spawn.js');
    pty.checkNativePty();
  } catch (err) {
    const error = ptyUnavailableError(err);
    return { name: 'node-pty', ok: false, detail: error.details.reason as string, fix: PTY_FIX };
  }
  const problem = (detail: string): CheckResult => ({
    name: 'node-pty',
    ok: false,
    detail,
    fix: PTY_FIX,
  });
  let output = '';
  let handle: import('../pty/pty-handle.js').PtyHandle | undefined;
  try {
    const exit = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => resolve('timeout'), PROBE_TIMEOUT_MS);
      try {
        handle = pty.spawnPty(
          {
            file: '/bin/sh',
            args: ['-c', 'echo ok'],
            cwd: tmpdir(),
            env: { PATH: env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color' },
            cols: 80,
            rows: 24,
          },
          {
            onData: (chunk) => {
              output += Buffer.from(chunk).toString('utf8');
            },
            onExit: () => {
              clearTimeout(timer);
              resolve('exit');
            },
          },
        );
      } catch (err) {
        clearTimeout(timer);
        reject(err);
      }
    });
    if (exit === 'timeout') {
      return problem(
        `a terminal running \`echo ok\` did not exit in ${formatDuration(PROBE_TIMEOUT_MS)}`,
      );
    }
  } catch (err) {
    return problem(`a terminal could not be started: ${(err as Error).message.split('\n')[0]}`);
  } finally {
    handle?.dispose();
  }
  if (!/^ok\r?$/m.test(output)) {
    return problem(`a terminal ran \`echo ok\` but showed ${JSON.stringify(output.slice(0, 80))}`);
  }
  return { name: 'node-pty', ok: true, detail: 'loads, and a terminal ran `echo ok`' };
}

/** $SHELL: where it is and its --version, judged by doctor.ts. */
function shellFacts(env: DoctorDeps['env']): CheckResult {
  const shell = env.SHELL;
  const found =
    shell === undefined || shell === ''
      ? undefined
      : resolveExecutable(shell, env.PATH ?? '', process.cwd());
  let versionOutput: string | undefined;
  if (found !== undefined) {
    try {
      versionOutput = execFileSync(found, ['--version'], {
        encoding: 'utf8',
        timeout: PROBE_TIMEOUT_MS,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } catch (err) {
      versionOutput = (err as { stdout?: string }).stdout || undefined;
    }
  }
  return shellCheck({ shell, found, versionOutput });
}

/** The attach socket directory is there (or can be made) and only its user can reach it. */
function socketCheck(deps: DoctorDeps): CheckResult {
  try {
    deps.ensureSocketDir(deps.socketDir);
    return { name: 'attach', ok: true, detail: `socket directory ${deps.socketDir}` };
  } catch (err) {
    const detail = (err as Error).message;
    // Most refusals already say what to do (remove it, chmod 700, set the variable).
    const said = /AGENT_TTY_SOCKET_DIR|remove it|chmod/.test(detail);
    return {
      name: 'attach',
      ok: false,
      detail,
      ...(said
        ? {}
        : { fix: 'set AGENT_TTY_SOCKET_DIR to an absolute directory of your own (made 0700)' }),
    };
  }
}

/**
 * /proc tells when a program waits for input (spec/tools.md, Early stop): a child's stat, its
 * thread's syscall line and its descriptors must be readable.
 */
async function procCheck(): Promise<CheckResult> {
  const child = spawn('sleep', ['5'], { stdio: 'ignore' });
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    const pid = child.pid as number;
    readFileSync(`/proc/${pid}/stat`, 'utf8');
    readFileSync(`/proc/${pid}/task/${pid}/syscall`, 'utf8');
    readdirSync(`/proc/${pid}/fd`);
    return { name: '/proc', ok: true, detail: 'readable: programs waiting for input are seen' };
  } catch (err) {
    return {
      name: '/proc',
      ok: false,
      detail: `a child's /proc entries cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); waits run to their timeout instead of stopping when a program asks for input`,
      fix: 'mount /proc (in a container: do not hide it), and allow reading your own processes there',
    };
  } finally {
    child.kill('SIGKILL');
  }
}
