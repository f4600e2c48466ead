import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const MODULE = fileURLToPath(new URL('../../../src/cli/test-command.js', import.meta.url));
const CONFIG = fileURLToPath(new URL('../../../src/shared/config.js', import.meta.url));

/**
 * Runs the command in a process of its own (it writes to the process's stdout and stderr). The
 * runner is a file, not `--input-type=module -e`: workers inherit the flag, and the pattern
 * worker is CommonJS.
 */
function runCommand(
  runner: string,
  argv: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [runner, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('runTestCommand', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'test-command-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const runner = join(dir, 'run.mjs');
  writeFileSync(
    runner,
    `const { runTestCommand } = await import(${JSON.stringify(MODULE)});
const { DEFAULT_CONFIG } = await import(${JSON.stringify(CONFIG)});
process.exitCode = await runTestCommand(process.argv.slice(2), DEFAULT_CONFIG);
// Like main.ts, exit once done: the pattern worker would keep the process alive.
setTimeout(() => process.exit(), 100).unref();
`,
  );
  const run = (argv: readonly string[]) => runCommand(runner, argv);

  it('prints its usage for --help, and exits 2 for an unknown option or no script', async () => {
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: agent-tty test \[--junit FILE\] SCRIPT\.json\.\.\./);
    const unknown = await run(['--fast', 'a.json']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^agent-tty test: unknown option --fast\nUsage: /);
    assert.equal((await run([])).code, 2);
    assert.equal((await run(['--junit', '', 'a.json'])).code, 2);
  });

  it('runs each script, exits 1 when one fails, and writes a private JUnit report', async () => {
    const pass = join(dir, 'pass.json');
    const fail = join(dir, 'fail.json');
    writeFileSync(
      pass,
      JSON.stringify({
        name: 'says hello',
        command: "printf 'hello\\n'",
        steps: [
          { type: 'expect', text: 'hello' },
          { type: 'expectExit', code: 0 },
        ],
      }),
    );
    writeFileSync(
      fail,
      JSON.stringify({
        name: 'exits badly',
        command: 'exit 3',
        steps: [{ type: 'expectExit', code: 0, timeoutMs: 5000 }],
      }),
    );
    const junit = join(dir, 'report.xml');
    const both = await run(['--junit', junit, pass, fail]);
    assert.equal(both.code, 1, both.stderr);
    assert.match(both.stdout, /✓ says hello/);
    assert.match(both.stdout, /✗ exits badly/);
    assert.match(both.stdout, /2 tests, 1 passed, 1 failed/);
    const xml = readFileSync(junit, 'utf8');
    assert.match(xml, /<testcase name="says hello"/);
    assert.match(xml, /<testcase name="exits badly"[\s\S]*<failure/);
    assert.equal(statSync(junit).mode & 0o777, 0o600);

    const one = await run([pass]);
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /1 test, 1 passed, 0 failed/);
  });
});
