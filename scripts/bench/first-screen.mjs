// Start to first real screen, with a shell profile that takes a second (as `pyenv init` does on a
// busy machine): how long terminal_start takes to return python3's `>>>` and an interactive bash's
// prompt, beside the time the same program takes to show it in a raw PTY (node-pty alone, no MCP,
// no readiness), in the same run. The difference is what readiness costs: the start returns once
// the program waits for input at its prompt, not at the first bytes (spec/guarantees.md, Readiness).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pty from 'node-pty';

const PROFILE = "sleep 1\nPS1='bench$ '\n";

/** ms from spawning `file args` in a raw PTY until its output matches `prompt`. */
function rawOnce(file, args, env, prompt) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const p = pty.spawn(file, args, { cols: 80, rows: 24, env, cwd: env.HOME });
    let text = '';
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`${file}: no prompt in 20 s`));
    }, 20_000);
    p.onData((data) => {
      text += data;
      if (prompt.test(text)) {
        clearTimeout(timer);
        const ms = performance.now() - started;
        p.kill('SIGKILL');
        resolve(ms);
      }
    });
  });
}

export async function reportFirstScreen(report, fmt, connect, runs) {
  const home = mkdtempSync(join(tmpdir(), 'agent-tty-bench-home-'));
  writeFileSync(join(home, '.bashrc'), PROFILE);
  const env = { ...process.env, HOME: home };
  const saved = process.env.HOME;
  process.env.HOME = home;
  const client = await connect();
  process.env.HOME = saved;
  const python = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], {
    encoding: 'utf8',
  }).trim();
  const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
  const cases = [
    ['python3', { command: `${python} -q`, login: false }, [python, ['-q']], />>> $/],
    [
      'bash (1 s profile)',
      { shell: '/bin/bash', login: false },
      ['/bin/bash', ['-i']],
      /bench\$ $/,
    ],
  ];
  try {
    for (const [name, args, [file, argv], prompt] of cases) {
      const ours = [];
      const raw = [];
      for (let i = 0; i < runs; i++) {
        raw.push(await rawOnce(file, argv, env, prompt));
        const started = performance.now();
        const result = await client.call('terminal_start', { cwd: home, ...args });
        ours.push(performance.now() - started);
        const screen = result.structuredContent.snapshot.screen.join('\n');
        if (!prompt.test(screen.trimEnd() + ' ')) throw new Error(`${name}: no prompt: ${screen}`);
        await client.call('terminal_close', { sessionId: result.structuredContent.sessionId });
      }
      const a = median(ours);
      const r = median(raw);
      report(
        `start → first real screen, ${name}`,
        fmt(a, 0),
        'ms',
        `${fmt(r, 0)} ms to its prompt in a raw PTY`,
        fmt(a / r, 2),
        '',
        undefined,
      );
    }
  } finally {
    await client.close();
    rmSync(home, { recursive: true, force: true });
  }
}
