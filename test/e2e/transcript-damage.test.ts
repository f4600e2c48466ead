/**
 * A session's transcript files damaged or refused from outside are an error of that session's
 * history, never of the server: a segment file cut to nothing by another program (`truncate -s 0`)
 * costs that session the lines in it, counted as missed and said in `transcriptError`, while the
 * server and its other sessions go on; a file-size limit (RLIMIT_FSIZE) is named EFBIG, not
 * ENOSPC; and the error shows in every snapshot of the session and in terminal_list, not only
 * beside a history page. Over stdio, against the built server and real programs.
 * Contract: spec/guarantees.md (Transcript), spec/tools.md (terminal_snapshot, terminal_list).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { isAlive, linuxOnly } from '../helpers/processes.js';
import { type Harness, startServer } from '../helpers/server.js';
import type { SessionInfo, Snapshot } from '../helpers/tool-calls.js';
import { sleep } from '../helpers/wait.js';

const PLAIN = { shell: '/bin/sh', login: false, cols: 80, rows: 24 };

/** Polls until the session's program has exited; its snapshot then. */
async function untilExited(h: Harness, id: string): Promise<Snapshot> {
  for (;;) {
    const s = await h.snapshot(id, { settleMs: 0 });
    if (s.status === 'exited') return s;
    await sleep(100);
  }
}

async function list(h: Harness): Promise<Map<string, SessionInfo>> {
  const reply = await h.call('terminal_list');
  assert.equal(reply.isError, false, reply.text);
  return new Map((reply.data.sessions ?? []).map((s) => [s.sessionId, s]));
}

/** A cat session answers what is typed to it: it and the server behind it work. */
async function assertAnswers(h: Harness, id: string, word: string): Promise<void> {
  const reply = await h.input(id, [{ type: 'text', text: `${word}\r` }], { settleMs: 100 });
  assert.equal(reply.isError, false, reply.text);
  await h.waitFor(id, (s) => s.screen.filter((row) => row === word).length >= 2);
}

describe('damaged and refused transcript files', { skip: linuxOnly, timeout: 120_000 }, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'agent-tty-transcript-damage-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('a truncated segment costs its session lines, never the server or the other sessions', async () => {
    const dir = mkdtempSync(join(tmp, 'truncate-'));
    // A 2 MB transcript: segments of 1 MiB, so 1.3 MB of output fills one and starts the next.
    const h = await startServer({
      args: ['--transcript-bytes', '2000000'],
      env: { AGENT_TTY_TRANSCRIPT_DIR: dir },
    });
    try {
      const other = await h.start({ command: 'cat', ...PLAIN, settleMs: 100 });
      const go = join(dir, 'go');
      const { id } = await h.start({
        command: `seq 1 200000; while [ ! -e ${go} ]; do sleep 0.05; done; seq 200001 400000`,
        ...PLAIN,
        settleMs: 0,
      });
      await h.waitFor(id, (s) => s.screen.includes('200000'), 60_000, { settleMs: 0 });
      const [files] = readdirSync(dir).filter((n) => n.startsWith(`agent-tty-transcript-${id}-`));
      assert.ok(files, 'the session has a transcript directory');
      const segments = () => readdirSync(join(dir, files)).filter((n) => n.startsWith('segment-'));
      assert.ok(segments().includes('segment-1'), `segment-0 is full: ${segments()}`);
      // Another program of the same user cuts the full segment to nothing; then the output goes
      // on past the bound, so the oldest lines, those in the cut file, are dropped.
      truncateSync(join(dir, files, 'segment-0'), 0);
      writeFileSync(go, '');
      const exited = await untilExited(h, id);
      assert.ok(isAlive(h.pid), 'the server lives');
      assert.match(exited.transcriptError ?? '', /could not be read back .*ETRUNCATED/);
      // Now every file is cut: the scrollback, a history page and a search read them.
      for (const s of segments()) truncateSync(join(dir, files, s), 0);
      const s = await h.snapshot(id, {
        settleMs: 0,
        scrollbackLines: 2000,
        historySince: 0,
        find: { text: '12345', history: 0 },
      });
      assert.ok(isAlive(h.pid), 'the server lives');
      assert.match(s.transcriptError ?? '', /could not be read back .*ETRUNCATED/);
      const history = s.history as NonNullable<Snapshot['history']>;
      assert.ok(history.missedLines > 0, 'the lost lines are counted as missed');
      assert.equal(history.since, history.missedLines);
      assert.match(history.transcriptError ?? '', /ETRUNCATED/);
      // What is still read is true: line n reads n.
      history.lines.forEach((line, i) => {
        assert.equal(line, String(history.since + 1 + i));
      });
      // The error stays in every snapshot of the session and in the list, for it alone.
      const later = await h.snapshot(id, { settleMs: 0 });
      assert.match(later.transcriptError ?? '', /ETRUNCATED/);
      const sessions = await list(h);
      assert.match(sessions.get(id)?.transcriptError ?? '', /ETRUNCATED/);
      assert.equal(sessions.get(other.id)?.transcriptError, undefined);
      assert.equal(sessions.get(other.id)?.status, 'running');
      // The other session and new ones work.
      await assertAnswers(h, other.id, 'still-here');
      const next = await h.start({ command: 'echo next-session', ...PLAIN, settleMs: 300 });
      assert.ok(next.snapshot.screen.includes('next-session'));
      assert.equal(next.snapshot.transcriptError, undefined);
      assert.doesNotMatch(h.stderr(), /uncaught|unhandled/i);
    } finally {
      await h.close();
    }
  });

  it('names a file-size limit EFBIG, in the snapshot and the list', async () => {
    const dir = mkdtempSync(join(tmp, 'limit-'));
    // Files of this server may not exceed 256 KiB (bash counts ulimit -f in KiB).
    const h = await startServer({
      env: { AGENT_TTY_TRANSCRIPT_DIR: dir },
      prefix: ['bash', '-c', 'ulimit -f 256 && exec "$0" "$@"'],
    });
    try {
      const other = await h.start({ command: 'cat', ...PLAIN, settleMs: 100 });
      const { id } = await h.start({ command: 'seq 1 200000', ...PLAIN, settleMs: 0 });
      const exited = await untilExited(h, id);
      assert.match(exited.transcriptError ?? '', /^EFBIG: /);
      const sessions = await list(h);
      assert.match(sessions.get(id)?.transcriptError ?? '', /^EFBIG: /);
      assert.equal(sessions.get(other.id)?.transcriptError, undefined);
      // The text a model reads says it too.
      const reply = await h.call('terminal_snapshot', { sessionId: id, settleMs: 0 });
      assert.match(reply.text, /transcript: EFBIG/);
      await assertAnswers(h, other.id, 'still-here');
    } finally {
      await h.close();
    }
  });
});
