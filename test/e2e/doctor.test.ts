/**
 * A broken node-pty install: a copy of the built package whose node-pty has no native module
 * (as after an install that skipped or failed node-pty's build). The server still answers
 * initialize and tools/list, and every terminal_start is a SPAWN_FAILED that names the fix;
 * `agent-tty doctor` says the same and exits 1. On the working install `agent-tty doctor`
 * exits 0. And the command line a person reads: --help of every command fits 100 columns, and
 * `version`, `--version` and `-v` print the same.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, SERVER } from '../helpers/paths.js';
import { startServer } from '../helpers/server.js';
import { assertToolError, TOOL_NAMES } from '../helpers/tool-calls.js';

const work = mkdtempSync(join(tmpdir(), 'agent-tty-doctor-'));
const socketDir = join(work, 'sockets');
/** The copied install: package.json, dist/ and a node-pty without any pty.node. */
const broken = join(work, 'install');
const brokenServer = join(broken, 'dist', 'main.js');
/** A user's environment with a known shell, and sockets kept out of the real directory. */
const env = { SHELL: '/bin/bash', AGENT_TTY_SOCKET_DIR: socketDir };

function doctor(server: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [server, 'doctor'], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

before(() => {
  mkdirSync(broken);
  cpSync(join(ROOT, 'package.json'), join(broken, 'package.json'));
  cpSync(join(ROOT, 'dist'), join(broken, 'dist'), { recursive: true });
  const pty = join(ROOT, 'node_modules', 'node-pty');
  const copy = join(broken, 'node_modules', 'node-pty');
  // node-pty's JavaScript without build/ or prebuilds/: it finds no native module to load.
  cpSync(join(pty, 'package.json'), join(copy, 'package.json'));
  cpSync(join(pty, 'lib'), join(copy, 'lib'), { recursive: true });
});
after(() => rmSync(work, { recursive: true, force: true }));

describe('node-pty that cannot load', () => {
  it('keeps the server up: initialize, tools/list, and terminal_start is SPAWN_FAILED with the fix', async () => {
    const server = await startServer({ server: brokenServer, env });
    try {
      const { tools } = await server.client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
      for (let i = 0; i < 2; i++) {
        const reply = await server.call('terminal_start', { command: 'echo hi', login: false });
        const error = assertToolError(reply, 'SPAWN_FAILED');
        assert.match(error.message, /node-pty/);
        assert.match(error.message, /npm install -g --allow-scripts=node-pty agent-tty/);
        assert.match(error.message, /npm rebuild node-pty/);
        assert.match(error.message, /agent-tty doctor/);
      }
      const listed = await server.call('terminal_list');
      assert.equal(listed.isError, false, listed.text);
      assert.deepEqual(listed.data.sessions, []);
    } finally {
      await server.close();
    }
  });

  it('agent-tty doctor exits 1 and names the fix', () => {
    const result = doctor(brokenServer);
    assert.equal(result.status, 1, result.stdout + result.stderr);
    const line = result.stdout.split('\n').find((l) => /node-pty/.test(l)) ?? '';
    assert.match(line, /^problem/, result.stdout);
    assert.match(line, /npm install -g --allow-scripts=node-pty agent-tty/);
    assert.match(line, /npm rebuild node-pty/);
  });
});

describe('node-pty repaired while the server runs', () => {
  it('starts terminals at the next terminal_start, without a restart', async () => {
    const server = await startServer({ server: brokenServer, env });
    try {
      const before = await server.call('terminal_start', { command: 'echo hi', login: false });
      assertToolError(before, 'SPAWN_FAILED');
      // Where node-pty keeps its native module: built here, or shipped prebuilt.
      const pty = join(ROOT, 'node_modules', 'node-pty');
      for (const dir of ['build', 'prebuilds'].filter((d) => existsSync(join(pty, d)))) {
        cpSync(join(pty, dir), join(broken, 'node_modules', 'node-pty', dir), { recursive: true });
      }
      const { snapshot } = await server.start({ command: 'echo repaired', login: false });
      assert.match(snapshot.screen.join('\n'), /repaired/);
    } finally {
      await server.close();
    }
  });
});

describe('agent-tty doctor on this install', () => {
  it('exits 0 with one ok line per check', () => {
    const result = doctor(SERVER);
    assert.equal(result.status, 0, result.stdout + result.stderr);
    const lines = result.stdout.trim().split('\n');
    const checks = lines.filter((l) => /^(ok|problem) /.test(l));
    assert.ok(checks.length >= 4, result.stdout);
    assert.ok(
      checks.every((l) => l.startsWith('ok ')),
      result.stdout,
    );
    for (const name of ['node', 'node-pty', 'shell', 'attach']) {
      assert.ok(
        checks.some((l) => l.includes(` ${name} `)),
        `a line for ${name}: ${result.stdout}`,
      );
    }
  });
});

describe('the command line', () => {
  const run = (args: string[]) =>
    spawnSync(process.execPath, [SERVER, ...args], { encoding: 'utf8', timeout: 20_000 });

  it('prints help in lines of at most 100 columns', () => {
    for (const args of [
      ['--help'],
      ['attach', '--help'],
      ['test', '--help'],
      ['doctor', '--help'],
    ]) {
      const result = run(args);
      assert.equal(result.status, 0, `${args.join(' ')}: ${result.stderr}`);
      const long = result.stdout.split('\n').filter((line) => line.length > 100);
      assert.deepEqual(long, [], `agent-tty ${args.join(' ')}`);
    }
    assert.match(run(['--help']).stdout, /agent-tty doctor/);
  });

  it('prints the same version for version, --version and -v', () => {
    const outputs = [['version'], ['--version'], ['-v']].map((args) => {
      const result = run(args);
      assert.equal(result.status, 0, `${args.join(' ')}: ${result.stderr}`);
      return result.stdout;
    });
    assert.match(outputs[0] ?? '', /^\d+\.\d+\.\d+\S*\n$/);
    assert.deepEqual(new Set(outputs).size, 1, JSON.stringify(outputs));
  });
});
