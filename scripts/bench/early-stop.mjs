// A wait at a prompt nobody expected: npm 11's `npm init` asks `type:` after `license:`, so a wait
// for `Is this OK` there can never match. It used to run to the 30 s default timeout; now it ends
// with INPUT_REQUIRED once the program has waited for input for 300 ms (spec/tools.md, Early stop).
// Each run answers npm init up to `license:`, waits for `type:` (the screen now shows it), then
// times one terminal_input call that waits for `Is this OK`. Skipped where npm is missing.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DEFAULT_WAIT_MS = 30_000;
const EXPECTED = ['package name:', 'version:', 'description:', 'entry point:', 'test command:'];
EXPECTED.push('git repository:', 'keywords:', 'author:', 'license:');

function hasNpm() {
  try {
    execFileSync('npm', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** One run: ms from the call to its INPUT_REQUIRED result. */
async function once(client, dir) {
  const cwd = mkdtempSync(join(dir, 'npm-'));
  const start = await client.call('terminal_start', {
    command: 'npm init',
    cwd,
    shell: '/bin/bash',
    login: false,
    settleMs: 0,
  });
  const sessionId = start.structuredContent.sessionId;
  try {
    const answered = await client.request('terminal_input', {
      sessionId,
      actions: [
        ...EXPECTED.flatMap((pattern) => [
          { type: 'wait', pattern },
          { type: 'key', key: 'Enter' },
        ]),
        { type: 'wait', pattern: 'type:' },
      ],
    });
    if (answered.isError) throw new Error(`npm init: ${answered.content[0]?.text}`);
    const started = performance.now();
    const reply = await client.request('terminal_input', {
      sessionId,
      actions: [{ type: 'wait', pattern: 'Is this OK' }],
    });
    const ms = performance.now() - started;
    const code = reply.structuredContent?.error?.code;
    if (code !== 'INPUT_REQUIRED')
      throw new Error(`expected INPUT_REQUIRED, got ${code ?? 'success'}`);
    return ms;
  } finally {
    await client.call('terminal_close', { sessionId });
  }
}

/** Reports the median time to INPUT_REQUIRED beside the default wait timeout it used to take. */
export async function reportEarlyStop(report, fmt, client, runs) {
  if (!hasNpm()) {
    console.log('  (npm init early stop: skipped, npm is not installed)');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'agent-tty-bench-npm-'));
  try {
    const times = [];
    for (let i = 0; i < runs; i++) times.push(await once(client, dir));
    const median = [...times].sort((a, b) => a - b)[times.length >> 1];
    report(
      'wait at npm init type: (unexpected prompt)',
      fmt(median, 0),
      'ms',
      `${DEFAULT_WAIT_MS} ms default wait timeout`,
      fmt(median / DEFAULT_WAIT_MS, 3),
      '< 1000 ms',
      median < 1000,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
