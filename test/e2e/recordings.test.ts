/**
 * Recordings hold what was typed, passwords included: the built server creates them private to
 * the user whatever the umask (files 0600, the directories it creates 0700), names a recording
 * only when its file is open, never follows or replaces what is already at the file's path, and
 * returns an absolute path for a relative --record-dir. `agent-tty test --junit` writes its
 * report the same way.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FIXTURES, SERVER } from '../helpers/paths.js';
import { which } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';
import type { ToolReply } from '../helpers/tool-calls.js';
import { waitUntil } from '../helpers/wait.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;
const octal = (mode: number) => `0${mode.toString(8)}`;

interface StartReply {
  recording?: string;
  recordingError?: string;
}

const startReply = (reply: ToolReply) => reply.data as StartReply;

/** The recording a session's terminal_list entry names, if any. */
async function listedRecording(h: Harness, id: string): Promise<StartReply | undefined> {
  const list = await h.call('terminal_list');
  return list.data.sessions?.find((s) => s.sessionId === id) as StartReply | undefined;
}

describe('recordings are private and truthful', {
  skip: which('bash') ? false : 'bash is not installed',
}, () => {
  let dir: string;
  let savedUmask: number;
  before(() => {
    // The usual umask, under which files default to 0644 and directories to 0755; the server
    // inherits it.
    savedUmask = process.umask(0o022);
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'agent-tty-recordings-')));
  });
  after(() => {
    process.umask(savedUmask);
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a password typed at read -s in a 0600 file, in 0700 directories it created', async () => {
    const home = join(dir, 'home');
    mkdirSync(home);
    const h = await startServer({ env: { HOME: home } });
    try {
      const reply = await h.call('terminal_start', {
        command: `read -s -p 'Password: ' PW; echo "length \${#PW}"; sleep 30`,
        shell: 'bash',
        login: false,
        record: true,
      });
      assert.equal(reply.isError, false, reply.text);
      const id = reply.data.sessionId as string;
      const { recording } = startReply(reply);
      assert.ok(recording, `no recording in ${reply.text}`);
      await h.input(id, [
        { type: 'wait', pattern: 'Password:' },
        { type: 'text', text: 's3cret-pw' },
        { type: 'key', key: 'Enter' },
        { type: 'wait', pattern: 'length 9' },
      ]);
      await h.call('terminal_close', { sessionId: id });
      const recordings = join(home, '.agent-tty', 'recordings');
      assert.equal(recording, join(recordings, readdirSync(recordings)[0] as string));
      // What the spec warns about: typed input is in the file even when the screen hid it.
      assert.match(readFileSync(recording, 'utf8'), /"i","s3cret-pw"/);
      assert.equal(octal(modeOf(recording)), '0600', 'recording file mode');
      assert.equal(octal(modeOf(recordings)), '0700', '~/.agent-tty/recordings mode');
      assert.equal(octal(modeOf(join(home, '.agent-tty'))), '0700', '~/.agent-tty mode');
      assert.equal(octal(modeOf(home)), '0755', 'an existing directory is left as it was');
    } finally {
      await h.close();
    }
  });

  it('creates a nested --record-dir 0700 at every new level, and leaves existing ones alone', async () => {
    const existing = join(dir, 'existing');
    mkdirSync(existing, { mode: 0o755 });
    const records = join(existing, 'a', 'b');
    const h = await startServer({ args: ['--record-dir', records] });
    try {
      const reply = await h.call('terminal_start', { command: 'echo hi', login: false });
      const { recording } = startReply(reply);
      assert.ok(recording, `no recording in ${reply.text}`);
      await h.call('terminal_close', { sessionId: reply.data.sessionId });
      assert.equal(octal(modeOf(recording)), '0600');
      assert.equal(octal(modeOf(records)), '0700');
      assert.equal(octal(modeOf(join(existing, 'a'))), '0700');
      assert.equal(octal(modeOf(existing)), '0755');
    } finally {
      await h.close();
    }
  });

  it('sets exactly 0600 and 0700 under a umask that also takes owner bits (0277)', async () => {
    const records = join(dir, 'strict', 'recs');
    process.umask(0o277);
    let h: Harness;
    try {
      h = await startServer({ args: ['--record-dir', records] });
    } finally {
      process.umask(0o022);
    }
    try {
      const reply = await h.call('terminal_start', { command: 'echo hi', login: false });
      const { recording } = startReply(reply);
      assert.ok(recording, `no recording in ${reply.text}`);
      await h.call('terminal_close', { sessionId: reply.data.sessionId });
      assert.equal(octal(modeOf(recording)), '0600');
      assert.equal(octal(modeOf(records)), '0700');
      assert.equal(octal(modeOf(join(dir, 'strict'))), '0700');
    } finally {
      await h.close();
    }
  });

  it('does not claim a recording it cannot create (--record-dir /proc/1), and says so', async () => {
    const h = await startServer({ args: ['--record-dir', '/proc/1'] });
    try {
      const reply = await h.call('terminal_start', { command: 'cat', login: false });
      assert.equal(reply.isError, false, reply.text);
      const id = reply.data.sessionId as string;
      const start = startReply(reply);
      assert.equal(start.recording, undefined, 'recording claimed for a file never created');
      assert.doesNotMatch(reply.text, /recording: \//);
      assert.match(start.recordingError ?? '', /\/proc\/1/);
      assert.match(reply.text, /not recorded/);
      const listed = await listedRecording(h, id);
      assert.equal(listed?.recording, undefined);
      assert.match(listed?.recordingError ?? '', /\/proc\/1/);
      // The session itself runs.
      await h.input(id, [
        { type: 'text', text: 'still here' },
        { type: 'key', key: 'Enter' },
        { type: 'wait', pattern: 'still here\\s+still here' },
      ]);
      await h.call('terminal_close', { sessionId: id });
    } finally {
      await h.close();
    }
  });

  it('neither follows nor claims a symlink planted at the recording name', async (t) => {
    const records = join(dir, 'planted');
    mkdirSync(records, { mode: 0o700 });
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'untouched\n');
    const h = await startServer({ args: ['--record-dir', records] });
    try {
      // A first session loads the terminal code, so the next ones start promptly.
      const first = await h.call('terminal_start', { command: 'true', login: false });
      assert.ok(startReply(first).recording, first.text);
      // The next session's name for every millisecond of a window points at the victim; the start
      // is sent once the window has begun, and must be answered before it ends. Planting takes
      // 0.2 ms a name on a quiet machine, several times that on a busy one: the window begins a
      // lead after planting starts, sized from the last planting's pace. A start that ends after
      // its window proves nothing: it is tried again with the next session and a window twice as
      // long.
      let reply: ToolReply | undefined;
      let id = '';
      let msPerName = 0.3;
      for (let attempt = 0, windowMs = 2000; reply === undefined; attempt++, windowMs *= 2) {
        id = `t${attempt + 2}`;
        const planting = Date.now();
        const from = planting + Math.ceil(1.5 * windowMs * msPerName) + 50;
        for (let ms = from; ms < from + windowMs; ms++) {
          const stamp = new Date(ms).toISOString().replace(/[:.]/g, '-');
          symlinkSync(victim, join(records, `agent-tty-${stamp}-${id}.cast`));
        }
        msPerName = (Date.now() - planting) / windowMs;
        await waitUntil(() => Date.now() >= from, 'the planted window begins', 60_000);
        const started = await h.call('terminal_start', { command: 'cat', login: false });
        assert.equal(started.data.sessionId, id);
        if (Date.now() < from + windowMs) {
          reply = started;
          t.diagnostic(`session ${id}: ${windowMs} ms planted, ${msPerName.toFixed(2)} ms a name`);
        } else {
          await h.call('terminal_close', { sessionId: id });
          assert.ok(attempt < 3, `the start took longer than the planted window (${windowMs} ms)`);
        }
      }
      await h.input(id, [
        { type: 'text', text: 'typed' },
        { type: 'key', key: 'Enter' },
        { type: 'wait', pattern: 'typed\\s+typed' },
      ]);
      await h.call('terminal_close', { sessionId: id });
      assert.equal(readFileSync(victim, 'utf8'), 'untouched\n', 'the symlink was followed');
      assert.ok(reply);
      const start = startReply(reply);
      assert.equal(start.recording, undefined, 'recording claimed at a planted symlink');
      assert.match(start.recordingError ?? '', /EEXIST/);
    } finally {
      await h.close();
    }
  });

  it('returns an absolute recording path for a relative --record-dir', async () => {
    const cwd = join(dir, 'cwd');
    mkdirSync(cwd);
    const h = await startServer({ args: ['--record-dir', 'rel/recs'], cwd });
    try {
      const reply = await h.call('terminal_start', { command: 'echo hi', login: false });
      const { recording } = startReply(reply);
      assert.ok(recording, `no recording in ${reply.text}`);
      await h.call('terminal_close', { sessionId: reply.data.sessionId });
      assert.ok(isAbsolute(recording), `${recording} is not absolute`);
      assert.equal(
        recording,
        join(cwd, 'rel', 'recs', readdirSync(join(cwd, 'rel/recs'))[0] ?? ''),
      );
    } finally {
      await h.close();
    }
  });

  it('writes the agent-tty test JUnit report 0600', { skip: !which('python3') }, () => {
    const junit = join(dir, 'junit.xml');
    const result = spawnSync(
      process.execPath,
      [SERVER, 'test', '--junit', junit, join(FIXTURES, 'scripts', 'dialog.json')],
      { encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(result.status, 0, result.stdout + result.stderr);
    assert.match(readFileSync(junit, 'utf8'), /<testsuite name="agent-tty"/);
    assert.equal(octal(modeOf(junit)), '0600');
  });
});
