/**
 * `agent-tty test`: scripts replayed by the built CLI with no model in the loop; exit codes,
 * the failure report, JUnit XML, and a recording turned into a script that replays.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { heavyOnly } from '../helpers/layers.js';
import { FIXTURES, SERVER } from '../helpers/paths.js';
import { which } from '../helpers/programs.js';
import { startServer } from '../helpers/server.js';

const run = (...args: string[]) =>
  spawnSync(process.execPath, [SERVER, 'test', ...args], { encoding: 'utf8', timeout: 60_000 });
const scripts = join(FIXTURES, 'scripts');

describe('agent-tty test', { skip: which('python3') ? false : 'python3 is not installed' }, () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-tty-test-cmd-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  // In the heavy layer: a passing script's exit 0 and summary are test/unit/cli/test-command.test.ts
  // > 'runs each script, exits 1 when one fails, and writes a private JUnit report', and the built
  // CLI passing this very script is recordings.test.ts > 'writes the agent-tty test JUnit report
  // 0600'.
  it('passes a script and exits 0', { skip: heavyOnly }, () => {
    const result = run(join(scripts, 'dialog.json'));
    assert.equal(result.status, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /✓ a prompt dialogue/);
    assert.match(result.stdout, /1 test, 1 passed, 0 failed/);
  });

  it('reports a failure with its step and the final screen, exits 1, and writes JUnit XML', () => {
    const junit = join(dir, 'junit.xml');
    const result = run(
      '--junit',
      junit,
      join(scripts, 'dialog.json'),
      join(scripts, 'failing.json'),
    );
    assert.equal(result.status, 1);
    assert.match(result.stdout, /✗ expects what never comes/);
    assert.match(
      result.stdout,
      /step 1 expect "goodbye": not on the screen; waited 300 ms for "goodbye" to appear; read the attached screen/,
    );
    assert.match(result.stdout, /1│hello/);
    const xml = readFileSync(junit, 'utf8');
    assert.match(xml, /<testsuite name="agent-tty" tests="2" failures="1"/);
    assert.match(xml, /<failure message="step 1 expect &quot;goodbye&quot;/);
  });

  it('fails an expect whose pattern backtracks catastrophically, instead of hanging', () => {
    const script = join(dir, 'backtracking.json');
    writeFileSync(
      script,
      JSON.stringify({
        name: 'backtracking',
        command: `printf '%s\\n' ${'a'.repeat(40)}!; sleep 30`,
        login: false,
        steps: [{ type: 'expect', pattern: '(a+)+$', timeoutMs: 10_000 }],
      }),
    );
    const started = performance.now();
    const result = spawnSync(process.execPath, [SERVER, 'test', script], {
      encoding: 'utf8',
      timeout: 15_000,
    });
    const ms = performance.now() - started;
    assert.equal(result.status, 1, `exit status after ${Math.round(ms)} ms: ${result.stdout}`);
    assert.match(result.stdout, /step 0 .*pattern \/\(a\+\)\+\$\/ ran longer than 1000 ms/);
  });

  it('rejects a malformed script with a clear message', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ name: 'bad', steps: [{ type: 'key', key: 'Enterr' }] }));
    const result = run(bad);
    assert.equal(result.status, 1);
    assert.match(result.stdout, /unknown key "Enterr"/);
  });

  it("validates a whole batch against the program's modes before sending any of it (#11)", () => {
    const script = join(dir, 'mouse-off.json');
    writeFileSync(
      script,
      JSON.stringify({
        name: 'mouse while reporting is off',
        command: 'cat',
        login: false,
        steps: [
          { type: 'expect', pattern: '^$', row: 1 },
          { type: 'text', text: 'typed-first' },
          { type: 'key', key: 'Enter' },
          { type: 'mouse', event: 'click', row: 1, column: 1 },
        ],
      }),
    );
    const result = run(script);
    assert.equal(result.status, 1, result.stdout);
    assert.match(result.stdout, /steps\[3\]: .*mouse/i);
    assert.doesNotMatch(result.stdout, /typed-first/, 'nothing of the failing batch was sent');
  });

  it('fails an expect at once when the program has exited with the screen not right (#11)', () => {
    const script = join(dir, 'exited.json');
    writeFileSync(
      script,
      JSON.stringify({
        name: 'exited early',
        command: 'echo done',
        login: false,
        steps: [{ type: 'expect', text: 'never printed', timeoutMs: 20_000 }],
      }),
    );
    const started = performance.now();
    const result = run(script);
    const ms = performance.now() - started;
    assert.equal(result.status, 1, result.stdout);
    assert.match(
      result.stdout,
      /step 0 expect "never printed": not on the screen; session "test" has exited \(exit code 0\) while waiting for "never printed" to appear/,
    );
    assert.ok(ms < 10_000, `failed after ${Math.round(ms)} ms, not at the 20 s timeout`);
  });

  it('fails an expect or expectExit early when the program asks for input instead', {
    skip: process.platform === 'linux' ? false : 'the input-wait probe needs Linux',
  }, () => {
    const write = (name: string, step: Record<string, unknown>) => {
      const file = join(dir, `${name}.json`);
      const command = "read -p 'Overwrite? [y/N] ' x; echo saved";
      writeFileSync(
        file,
        JSON.stringify({ name, command, shell: '/bin/bash', login: false, steps: [step] }),
      );
      return file;
    };
    const started = performance.now();
    const result = run(
      write('asks-before-expect', { type: 'expect', text: 'saved', timeoutMs: 20_000 }),
      write('asks-before-exit', { type: 'expectExit', timeoutMs: 20_000 }),
      write('waits-anyway', { type: 'expect', text: 'saved', timeoutMs: 1500, stopOnInput: false }),
    );
    const ms = performance.now() - started;
    assert.equal(result.status, 1, result.stdout);
    assert.match(
      result.stdout,
      /step 0 expect "saved": not on the screen; the program is waiting for input and "saved" has not appeared \(quiet for (\d+ ms|\d+\.\d s)\); read the attached screen and answer what it asks with terminal_input, or pass stopOnInput:false/,
    );
    assert.match(
      result.stdout,
      /step 0 expectExit: the program is waiting for input and it has not exited \(quiet for (\d+ ms|\d+\.\d s)\)/,
    );
    assert.match(result.stdout, /1│Overwrite\? \[y\/N\]/);
    assert.match(
      result.stdout,
      /step 0 expect "saved": not on the screen; waited 1.5 s for "saved" to appear/,
    );
    assert.ok(ms < 10_000, `failed after ${Math.round(ms)} ms, not at the 20 s timeouts`);
  });

  it('turns a recording into a script that replays', async () => {
    const records = join(dir, 'records');
    const h = await startServer({ args: ['--record-dir', records] });
    const command = `python3 -c "n=input('Name? '); c=input('Color? '); print('Hi', n, c)"`;
    try {
      const { id } = await h.start({ command, login: false, cols: 50, rows: 6 });
      await h.input(id, [
        { type: 'wait', pattern: 'Name' },
        { type: 'text', text: 'Ada' },
        { type: 'key', key: 'Enter' },
      ]);
      await h.input(id, [
        { type: 'wait', pattern: 'Color' },
        { type: 'text', text: 'red' },
        { type: 'key', key: 'Enter' },
      ]);
      await h.input(id, [{ type: 'wait', exit: true }]);
    } finally {
      await h.close();
    }
    const cast = join(records, readdirSync(records)[0] as string);
    const skeleton = run('--from-recording', cast);
    assert.equal(skeleton.status, 0, skeleton.stderr);
    const script = JSON.parse(skeleton.stdout);
    assert.equal(script.command, command);
    assert.deepEqual(
      script.steps.map((s: { type: string }) => s.type),
      ['wait', 'text', 'key', 'wait', 'text', 'key', 'expect', 'expectExit'],
    );
    assert.deepEqual(script.steps.at(-1), { type: 'expectExit', code: 0 });
    const file = join(dir, 'replay.json');
    writeFileSync(file, JSON.stringify({ ...script, login: false }));
    const replay = run(file);
    assert.equal(replay.status, 0, replay.stdout);
  });
});
