/**
 * Early stop measured on ordinary programs, in both directions, through the built server: the
 * programs that work without reading the terminal (downloads against a slow local server, node and
 * python event loops, npm and pip against a slow local index, make with a compiler child, git
 * clone from a slow git daemon) run to their end with no inputRequired, and autoClose never kills
 * one that was wrongly taken for a prompt; the programs that ask (a hidden `read -s`, python
 * input(), node readline, python's REPL, less, vim, git add -p, npm init, a question asked on
 * /dev/tty with stdin a pipe) stop soon after the prompt appears. Each case reports its figure as
 * a test diagnostic; what is asserted is that the program ran to its end, or that the wait ended
 * with INPUT_REQUIRED well before its timeout, never how soon (npm run bench measures that; the
 * timing is unit-tested on a fake clock in test/unit/session/early-stop.test.ts). npm test runs
 * one program of each table (LIGHT); the heavy layer (test/helpers/layers.ts) runs them all.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { HEAVY } from '../helpers/layers.js';
import { python, which } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';
import { assertToolError, screenText } from '../helpers/tool-calls.js';

const LINUX = process.platform === 'linux' ? false : 'the input-wait probe needs Linux /proc';
const BASH = { shell: '/bin/bash', login: false };
/** How long the slow servers take to answer: long enough that a false stop would come first. */
const SLOW_MS = 2500;
/**
 * The timeout of the wait that must stop early, set on it: a stop comes about 0.35 s after the
 * prompt (300 ms of quiet and a round trip), far from it.
 */
const WAIT_TIMEOUT_MS = 30_000;
/**
 * "Well before the timeout": a wait that ran on to its timeout is what a stop later than this
 * would be. Not a speed bound: a loaded machine is far inside it.
 */
const WELL_BEFORE_MS = WAIT_TIMEOUT_MS / 2;
/**
 * The one program of each table npm test runs: a download kept by autoClose (a slow network, a
 * file written at the end) and a hidden read (bash only). The others, and the probe on event
 * loops, REPLs and /dev/tty in test/unit/pty/input-wait.test.ts, cover the rest.
 */
const LIGHT = new Set([
  'curl -o with autoClose: the download is kept',
  'a hidden read (read -s), as ssh and password prompts ask',
]);

/** Runs a setup command without blocking the slow servers this process runs meanwhile. */
function exec(file: string, args: string[], cwd: string, env = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd, env, encoding: 'utf8' }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
  });
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** Where a case reports its figure. */
interface Reporter {
  diagnostic(message: string): void;
}

/** One program of the table: skipped with a reason when it is not installed. */
interface Case {
  readonly name: string;
  readonly skip: string | false;
  readonly run: (t: Reporter) => Promise<void>;
}

function testCase(
  name: string,
  options: { skip?: string | false } | ((t: Reporter) => Promise<void>),
  run?: (t: Reporter) => Promise<void>,
): Case {
  if (typeof options === 'function') return { name, skip: false, run: options };
  return { name, skip: options.skip ?? false, run: run as Case['run'] };
}

/**
 * Runs the cases, at once or one after another, reports each one's figure, and fails with every
 * case that failed. Programs at work run at once: each is mostly waiting, so the table takes as
 * long as its slowest case. Prompts are timed one at a time, so that each wait is running when
 * its prompt appears.
 */
async function runAll(
  t: TestContext,
  cases: readonly Case[],
  order: 'at once' | 'in turn',
): Promise<void> {
  const runCase = async (c: Case) => {
    if (c.skip) {
      t.diagnostic(`${c.name}: skipped (${c.skip})`);
      return;
    }
    if (!HEAVY && !LIGHT.has(c.name)) {
      t.diagnostic(`${c.name}: runs in the heavy layer`);
      return;
    }
    await c.run({ diagnostic: (message) => t.diagnostic(`${c.name}: ${message}`) });
  };
  let results: PromiseSettledResult<void>[];
  if (order === 'at once') {
    results = await Promise.allSettled(cases.map(runCase));
  } else {
    results = [];
    for (const c of cases) results.push(...(await Promise.allSettled([runCase(c)])));
  }
  const failed = results.flatMap((r, i) =>
    r.status === 'rejected' ? [`${cases[i]?.name}: ${(r.reason as Error).message}`] : [],
  );
  assert.deepEqual(failed, [], failed.join('\n\n'));
}

/** An HTTP server that answers every request after `delayMs` with what `route` gives. */
async function slowServer(
  delayMs: number,
  route: (url: string) => { status: number; body: Buffer | string; type?: string },
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    setTimeout(() => {
      const { status, body, type } = route(req.url ?? '/');
      res.writeHead(status, { 'content-type': type ?? 'text/plain' });
      res.end(body);
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// The two tables side by side: nothing in them is timed against the other.
describe('early stop on ordinary programs', { skip: LINUX, concurrency: true }, () => {
  let h: Harness;
  let dir: string;
  let web: Awaited<ReturnType<typeof slowServer>>;
  const children: ChildProcess[] = [];
  const closers: (() => Promise<void> | void)[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-tty-early-programs-'));
    h = await startServer({ args: ['--max-sessions', '16'] });
    web = await slowServer(SLOW_MS, () => ({ status: 200, body: 'DONE-BODY\n' }));
    closers.push(web.close);
  });
  after(async () => {
    await h.close();
    for (const close of closers) await close();
    for (const child of children) {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A one-shot run that must not stop early: it ends on its own, with no inputRequired, and
   * autoClose closes it only then.
   */
  async function runsToItsEnd(t: Reporter, command: string, expect: RegExp, exitCode = 0) {
    const started = Date.now();
    const run = await h.call('terminal_start', {
      command,
      ...BASH,
      cwd: dir,
      waitForExit: true,
      autoClose: true,
      timeoutMs: 60_000,
      scrollbackLines: 100,
    });
    t.diagnostic(`no stop: ran to its exit in ${Date.now() - started} ms`);
    assert.equal(run.isError, false, run.text);
    assert.equal(run.data.inputRequired, undefined, `taken for a prompt: ${run.text}`);
    assert.equal(run.data.timedOut, undefined, run.text);
    assert.equal(run.data.snapshot?.exitCode, exitCode, run.text);
    assert.equal(run.data.closed, true);
    assert.match(run.text, expect);
  }

  /**
   * A program that asks: started, then waited on for a line it never prints, which must end with
   * INPUT_REQUIRED soon after the prompt (the error's quietMs is how long the screen had been
   * quiet, that is since the prompt, when the wait ended).
   */
  async function stopsAtItsPrompt(t: Reporter, command: string, prompt: RegExp) {
    const start = await h.call('terminal_start', { command, ...BASH, cwd: dir, settleMs: 0 });
    assert.equal(start.isError, false, start.text);
    const id = start.data.sessionId as string;
    try {
      const began = Date.now();
      const wait = await h.call('terminal_input', {
        sessionId: id,
        actions: [{ type: 'wait', pattern: 'NEVER-PRINTED', timeoutMs: WAIT_TIMEOUT_MS }],
      });
      const elapsed = Date.now() - began;
      assertToolError(wait, 'INPUT_REQUIRED');
      // The attached screen says how long it has been quiet: since the prompt was drawn.
      const quietMs = wait.data.snapshot?.quietMs as number;
      t.diagnostic(`stop: ${quietMs} ms after the prompt (${elapsed} ms after the wait began)`);
      assert.match(screenText(wait.data.snapshot as never), prompt);
      assert.ok(quietMs < WELL_BEFORE_MS, `stopped ${quietMs} ms after the prompt`);
    } finally {
      await h.call('terminal_close', { sessionId: id });
    }
  }

  const atWork: Case[] = [
    testCase(
      'curl against a server that answers late',
      { skip: !which('curl') && 'no curl' },
      (t) => runsToItsEnd(t, `curl -s ${web.url}/`, /DONE-BODY/),
    ),

    testCase(
      'wget against a server that answers late',
      { skip: !which('wget') && 'no wget' },
      (t) => runsToItsEnd(t, `wget -q -O - ${web.url}/`, /DONE-BODY/),
    ),

    testCase(
      'curl -o with autoClose: the download is kept',
      { skip: !which('curl') && 'no curl' },
      async (t) => {
        const file = join(dir, 'download.txt');
        await runsToItsEnd(t, `curl -s -o ${quote(file)} ${web.url}/file && echo SAVED`, /SAVED/);
        assert.equal(readFileSync(file, 'utf8'), 'DONE-BODY\n');
      },
    ),

    testCase('node waiting for a child (execFile sleep)', (t) =>
      runsToItsEnd(
        t,
        `${quote(process.execPath)} -e "require('child_process').execFile('sleep',['2'],()=>console.log('DONE'))"`,
        /DONE/,
      ),
    ),

    testCase('node waiting for a timer', (t) =>
      runsToItsEnd(
        t,
        `${quote(process.execPath)} -e "setTimeout(()=>console.log('DONE'),6000)"`,
        /DONE/,
      ),
    ),

    testCase('python asyncio waiting for a sleep', (t) =>
      runsToItsEnd(
        t,
        `${quote(python())} -c "import asyncio; asyncio.run(asyncio.sleep(6)); print('DONE')"`,
        /DONE/,
      ),
    ),

    testCase(
      'make running a compiler child after a pause',
      {
        skip: !(which('make') && which('cc')) && 'make or cc is not installed',
      },
      (t) => {
        const project = join(dir, 'make');
        mkdirSync(project, { recursive: true });
        writeFileSync(
          join(project, 'prog.c'),
          '#include <stdio.h>\nint main(void) { puts("BUILT-AND-RAN"); return 0; }\n',
        );
        writeFileSync(
          join(project, 'Makefile'),
          'all:\n\tsleep 1.5\n\tcc -O2 -o prog prog.c\n\t./prog\n',
        );
        return runsToItsEnd(t, `make -s -C ${quote(project)}`, /BUILT-AND-RAN/);
      },
    ),

    testCase(
      'npm install from a registry that answers late',
      {
        skip: !which('npm') && 'npm is not installed',
      },
      async (t) => {
        const pkg = join(dir, 'tiny-pkg');
        mkdirSync(pkg, { recursive: true });
        writeFileSync(join(pkg, 'package.json'), '{"name":"tiny-pkg","version":"1.0.0"}\n');
        writeFileSync(join(pkg, 'index.js'), 'module.exports = 42;\n');
        const tgzName = (
          await exec('npm', ['pack', '--silent', '--pack-destination', dir], pkg)
        ).trim();
        const tgz = readFileSync(join(dir, tgzName));
        const registry = await slowServer(SLOW_MS, (url) => {
          if (url.endsWith('.tgz'))
            return { status: 200, body: tgz, type: 'application/octet-stream' };
          if (!url.startsWith('/tiny-pkg')) return { status: 404, body: '{}' };
          const packument = {
            name: 'tiny-pkg',
            'dist-tags': { latest: '1.0.0' },
            versions: {
              '1.0.0': {
                name: 'tiny-pkg',
                version: '1.0.0',
                dist: {
                  tarball: `${registry.url}/tiny-pkg/-/tiny-pkg-1.0.0.tgz`,
                  shasum: createHash('sha1').update(tgz).digest('hex'),
                  integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}`,
                },
              },
            },
          };
          return { status: 200, body: JSON.stringify(packument), type: 'application/json' };
        });
        closers.push(registry.close);
        const app = join(dir, 'app');
        mkdirSync(app, { recursive: true });
        writeFileSync(
          join(app, 'package.json'),
          '{"name":"app","version":"1.0.0","private":true}\n',
        );
        const npmFlags = `--registry ${registry.url}/ --cache ${quote(join(dir, 'npm-cache'))} --no-audit --no-fund --no-update-notifier`;
        await runsToItsEnd(
          t,
          `cd ${quote(app)} && npm install ${npmFlags} tiny-pkg && node -p "require('tiny-pkg') + ' INSTALLED'"`,
          /42 INSTALLED/,
        );
      },
    ),

    testCase(
      'pip download from an index that answers late',
      {
        skip: (() => {
          try {
            execFileSync(python(), ['-m', 'pip', '--version'], { stdio: 'ignore' });
            return false;
          } catch {
            return 'pip is not installed';
          }
        })(),
      },
      async (t) => {
        const index = await slowServer(SLOW_MS, () => ({
          status: 200,
          body: '<!DOCTYPE html><html><body></body></html>',
          type: 'text/html',
        }));
        closers.push(index.close);
        // The index lists nothing: pip looks, finds no such package, and says so.
        await runsToItsEnd(
          t,
          `${quote(python())} -m pip download --disable-pip-version-check --no-cache-dir --index-url ${index.url}/simple/ --dest ${quote(join(dir, 'pip'))} tiny-pkg; echo "PIP-EXIT=$?"`,
          /PIP-EXIT=1/,
        );
      },
    ),

    testCase(
      'git clone from a git daemon that answers late',
      {
        skip: !which('git') && 'git is not installed',
      },
      async (t) => {
        const base = join(dir, 'git');
        const work = join(base, 'work');
        mkdirSync(work, { recursive: true });
        const git = (cwd: string, ...args: string[]) =>
          exec('git', args, cwd, { ...process.env, HOME: dir });
        await git(work, 'init', '-q');
        writeFileSync(join(work, 'README'), 'CLONED-README\n');
        await git(work, 'add', 'README');
        await git(work, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'one');
        await git(base, 'clone', '-q', '--bare', work, 'repo.git');
        const daemonPort = await freePort();
        const daemon = spawn(
          'git',
          [
            'daemon',
            '--reuseaddr',
            '--export-all',
            `--base-path=${base}`,
            '--listen=127.0.0.1',
            `--port=${daemonPort}`,
            base,
          ],
          // git runs git-daemon as its child: a group of their own, killed whole.
          { stdio: 'ignore', detached: true },
        );
        children.push(daemon);
        await waitForPort(daemonPort);
        // A proxy that holds each connection SLOW_MS before passing it on: a slow network.
        const proxy = net.createServer((client) => {
          client.pause();
          setTimeout(() => {
            const upstream = net.connect(daemonPort, '127.0.0.1');
            client.pipe(upstream).pipe(client);
            client.resume();
            upstream.on('error', () => client.destroy());
            client.on('error', () => upstream.destroy());
          }, SLOW_MS);
        });
        await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
        closers.push(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
        const { port } = proxy.address() as AddressInfo;
        await runsToItsEnd(
          t,
          `git clone -q git://127.0.0.1:${port}/repo.git ${quote(join(dir, 'cloned'))} && cat ${quote(join(dir, 'cloned', 'README'))}`,
          /CLONED-README/,
        );
      },
    ),
  ];

  const asking: Case[] = [
    testCase('a hidden read (read -s), as ssh and password prompts ask', (t) =>
      stopsAtItsPrompt(t, `read -s -p 'Password: ' pw; echo "got \${#pw}"`, /^Password:$/m),
    ),

    testCase('python input()', (t) =>
      stopsAtItsPrompt(t, `${quote(python())} -c "input('name? ')"`, /^name\?$/m),
    ),

    testCase("python's REPL", (t) => stopsAtItsPrompt(t, `${quote(python())} -q`, /^>>>$/m)),

    testCase('node readline', (t) =>
      stopsAtItsPrompt(
        t,
        `${quote(process.execPath)} -e "require('readline').createInterface({input:process.stdin,output:process.stdout}).question('Project name? ',a=>console.log(a))"`,
        /^Project name\?$/m,
      ),
    ),

    testCase('a question asked on /dev/tty while stdin is a pipe', (t) =>
      stopsAtItsPrompt(
        t,
        `echo data | ${quote(python())} -c "import select; r = open('/dev/tty'); w = open('/dev/tty', 'w'); w.write('Overwrite? [y/N] '); w.flush(); select.select([r], [], []); print(r.readline())"`,
        /^Overwrite\? \[y\/N\]$/m,
      ),
    ),

    testCase('less', { skip: !which('less') && 'less is not installed' }, (t) => {
      writeFileSync(
        join(dir, 'long.txt'),
        Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join('\n'),
      );
      return stopsAtItsPrompt(t, `less ${quote(join(dir, 'long.txt'))}`, /^line 1$/m);
    }),

    testCase('vim', { skip: !which('vim') && 'vim is not installed' }, (t) =>
      stopsAtItsPrompt(t, `vim -Nu NONE -i NONE ${quote(join(dir, 'notes.txt'))}`, /notes\.txt/),
    ),

    testCase('git add -p', { skip: !which('git') && 'git is not installed' }, (t) => {
      const repo = join(dir, 'patch');
      mkdirSync(repo, { recursive: true });
      const git = (...args: string[]) =>
        execFileSync('git', args, {
          cwd: repo,
          stdio: 'ignore',
          env: { ...process.env, HOME: dir },
        });
      git('init', '-q');
      writeFileSync(join(repo, 'f.txt'), 'a\nb\n');
      git('add', 'f.txt');
      git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'one');
      writeFileSync(join(repo, 'f.txt'), 'a\nc\n');
      return stopsAtItsPrompt(
        t,
        `cd ${quote(repo)} && HOME=${quote(dir)} git add -p`,
        /Stage this hunk/,
      );
    }),

    testCase('npm init', { skip: !which('npm') && 'npm is not installed' }, (t) => {
      const project = join(dir, 'npm-init');
      mkdirSync(project, { recursive: true });
      return stopsAtItsPrompt(
        t,
        `cd ${quote(project)} && npm init --no-update-notifier`,
        /package name:/,
      );
    }),
  ];

  it('runs programs at work to their end: none is taken for a prompt', (t) =>
    runAll(t, atWork, 'at once'));
  it('stops soon after the prompt of programs that ask', (t) => runAll(t, asking, 'in turn'));
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForPort(port: number, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listens on port ${port}`);
}
