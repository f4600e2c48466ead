/**
 * SessionTerminal with real programs in a real PTY: output reaches the screen in order and is
 * counted, input reaches the program, a resize reaches both, the screen's replies go to a live
 * program, a spawn that fails leaves no screen parsing behind, and a recording when asked for.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { PtyEvents, PtyExit, SpawnOptions } from '../../../src/pty/pty-handle.js';
import { spawnPty } from '../../../src/pty/spawn.js';
import type { SessionFiles } from '../../../src/session/session-files.js';
import {
  SessionTerminal,
  type TerminalOwner,
  type TerminalSpec,
} from '../../../src/session/session-terminal.js';
import { TerminalError } from '../../../src/shared/errors.js';
import { createLogger } from '../../../src/shared/log.js';
import { sleep, waitUntil } from '../../helpers/wait.js';

const root = mkdtempSync(join(tmpdir(), 'agent-tty-test-session-terminal-'));
after(() => rmSync(root, { recursive: true, force: true }));

const files: SessionFiles = {
  history: undefined,
  integration: undefined,
  transcript: { limitBytes: 1024 * 1024 },
  remove: () => undefined,
};

function specOf(script: string, extra: Partial<TerminalSpec> = {}): TerminalSpec {
  return {
    id: 't1',
    file: '/bin/sh',
    args: ['-c', script],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color' },
    cwd: '/',
    cols: 40,
    rows: 10,
    scrollbackLines: 100,
    command: script,
    shell: '/bin/sh',
    ...extra,
  };
}

/** An owner that spawns for real and counts what it is asked and what the PTY delivered. */
function ownerOf(spawn = spawnPty) {
  const seen = {
    live: true,
    isLiveCalls: 0,
    marks: 0,
    bytes: 0,
    exits: [] as PtyExit[],
    logs: [] as string[],
  };
  const owner: TerminalOwner = {
    spawn: (options: SpawnOptions, events: PtyEvents) =>
      spawn(options, {
        onData: (chunk) => {
          seen.bytes += chunk.length;
          events.onData(chunk);
        },
        onExit: events.onExit,
      }),
    logger: createLogger('debug', (line) => seen.logs.push(line)),
    isLive: () => {
      seen.isLiveCalls++;
      return seen.live;
    },
    markInput: () => seen.marks++,
    onExit: (exit) => seen.exits.push(exit),
  };
  return { owner, seen };
}

const rows = (t: SessionTerminal) => t.screen.grid().screen;

async function screenShows(t: SessionTerminal, text: string, what = text): Promise<void> {
  await waitUntil(() => rows(t).join('\n').includes(text), `the screen shows ${what}`, 5000);
}

describe('SessionTerminal', () => {
  it('puts output on the screen in the order it came, and counts its bytes', async () => {
    const { owner, seen } = ownerOf();
    const t = new SessionTerminal(specOf('seq 1 200; printf done; exec cat'), files, owner);
    try {
      await screenShows(t, 'done');
      await t.screen.whenParsed();
      assert.deepEqual(rows(t).slice(0, 9), [
        '192',
        '193',
        '194',
        '195',
        '196',
        '197',
        '198',
        '199',
        '200',
      ]);
      assert.equal(rows(t)[9], 'done');
      const page = t.screen.historySince(0, 1000, Number.POSITIVE_INFINITY);
      assert.deepEqual(
        page.lines,
        Array.from({ length: 191 }, (_, i) => String(i + 1)),
      );
      assert.equal(t.outputBytes, seen.bytes);
      assert.ok(t.outputBytes >= 'done'.length + 692 + 200, String(t.outputBytes));
      assert.equal(t.recording, undefined);
      assert.equal(t.recordingError, undefined);
    } finally {
      t.dispose();
    }
  });

  it('writes input to the program', async () => {
    const { owner } = ownerOf();
    const t = new SessionTerminal(specOf('stty -echo; echo ready; exec cat'), files, owner);
    try {
      await screenShows(t, 'ready');
      t.write(Buffer.from('sent through\r'));
      await screenShows(t, 'sent through', 'what cat read back');
    } finally {
      t.dispose();
    }
  });

  it('resizes the screen and the PTY together', async () => {
    const { owner } = ownerOf();
    const t = new SessionTerminal(specOf('stty size; read x; stty size; exec cat'), files, owner);
    try {
      await screenShows(t, '10 40');
      t.resize(60, 15);
      assert.equal(t.screen.cols, 60);
      assert.equal(t.screen.rows, 15);
      t.write(Buffer.from('\r'));
      await screenShows(t, '15 60', 'the size the program reads');
    } finally {
      t.dispose();
    }
  });

  it("sends the screen's replies to a live program, marking them as input", async () => {
    const { owner, seen } = ownerOf();
    const t = new SessionTerminal(
      specOf("stty raw -echo; printf '\\033[c'; head -c 3 | od -An -tx1; exec cat"),
      files,
      owner,
    );
    try {
      await screenShows(t, '1b 5b 3f', 'the device attributes reply read by the program');
      assert.ok(seen.isLiveCalls > 0);
      assert.ok(seen.marks > 0, 'the reply was marked as input');
    } finally {
      t.dispose();
    }
  });

  it('sends no reply to a program that is not live', async () => {
    const { owner, seen } = ownerOf();
    seen.live = false;
    const t = new SessionTerminal(
      specOf("stty raw -echo; printf '\\033[cwaiting'; head -c 1 | od -An -tx1; exec cat"),
      files,
      owner,
    );
    try {
      await screenShows(t, 'waiting');
      await sleep(200);
      assert.ok(seen.isLiveCalls > 0, 'the reply was asked about');
      assert.equal(seen.marks, 0);
      t.write(Buffer.from('A'));
      await screenShows(t, '41', 'the first byte the program read is the one written');
    } finally {
      t.dispose();
    }
  });

  it('reports the exit to its owner', async () => {
    const { owner, seen } = ownerOf();
    const t = new SessionTerminal(specOf('exit 3'), files, owner);
    try {
      await waitUntil(() => seen.exits.length > 0, 'the exit', 5000);
      assert.deepEqual(seen.exits, [{ exitCode: 3, signal: null }]);
    } finally {
      t.dispose();
    }
  });

  it('throws SPAWN_FAILED when the program cannot start, leaving no screen at work', async () => {
    // Output delivered before the spawn fails asks for a reply: a screen left behind would parse
    // it and ask its owner whether the program is live.
    const { owner, seen } = ownerOf((options, events) => {
      events.onData(Buffer.from('\x1b[c\x1b]0;title\x07'));
      return spawnPty({ ...options, cwd: join(root, 'missing') }, events);
    });
    assert.throws(
      () => new SessionTerminal(specOf('exec cat'), files, owner),
      (err: unknown) => err instanceof TerminalError && err.code === 'SPAWN_FAILED',
    );
    await sleep(100);
    assert.equal(seen.isLiveCalls, 0, 'nothing was parsed after the failure');
  });

  it('records output, input, resizes and the exit when a directory is given', async () => {
    const dir = join(root, 'recordings');
    const { owner, seen } = ownerOf();
    const t = new SessionTerminal(
      specOf('echo started; read x; exit 3', { recordDir: dir, command: 'my command' }),
      files,
      owner,
    );
    await screenShows(t, 'started');
    assert.equal(t.recordingError, undefined);
    const path = t.recording ?? '';
    assert.ok(path.startsWith(join(dir, 'agent-tty-')) && path.endsWith('-t1.cast'), path);
    t.resize(50, 12);
    t.write(Buffer.from('go\r'));
    await waitUntil(() => seen.exits.length > 0, 'the exit', 5000);
    await t.screen.whenParsed();
    t.exited(seen.exits[0] as PtyExit);
    t.dispose();
    await waitUntil(
      () => existsSync(path) && readFileSync(path, 'utf8').includes('exit 3'),
      'the recording',
      5000,
    );
    const [header, ...events] = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.equal(header.version, 2);
    assert.equal(header.width, 40);
    assert.equal(header.height, 10);
    const kinds = events.map((e: [number, string, string]) => `${e[1]} ${e[2]}`);
    const output = events
      .filter((e: unknown[]) => e[1] === 'o')
      .map((e: unknown[]) => e[2])
      .join('');
    assert.match(output, /started/);
    assert.ok(kinds.includes('r 50x12'), kinds.join(' | '));
    assert.ok(kinds.includes('i go\r'), kinds.join(' | '));
    assert.equal(kinds.at(-1), 'm exit 3');
    assert.ok(kinds.indexOf('r 50x12') < kinds.indexOf('i go\r'), 'in the order they happened');
  });

  it('runs unrecorded, saying why, when the recording cannot be made', async () => {
    const file = join(root, 'plain-file');
    writeFileSync(file, '');
    const { owner, seen } = ownerOf();
    const t = new SessionTerminal(
      specOf('exec cat', { recordDir: join(file, 'below') }),
      files,
      owner,
    );
    try {
      assert.equal(t.recording, undefined);
      assert.match(t.recordingError ?? '', /cannot create a recording/);
      assert.ok(
        seen.logs.some((l) => /session t1 is not recorded/.test(l)),
        seen.logs.join(''),
      );
      t.write(Buffer.from('still works\r'));
      await screenShows(t, 'still works');
      assert.deepEqual(readdirSync(root).includes('below'), false);
    } finally {
      t.dispose();
    }
  });
});
