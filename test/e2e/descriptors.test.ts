/**
 * A program holds no descriptor of another session or of the server (spec/guarantees.md, Guarantees
 * "A program holds only its own terminal"), through the built server over stdio: a program
 * started beside running sessions, and one started into the descriptor numbers a closed session
 * left free, hold only their own terminal on 0, 1 and 2: no terminal master (/dev/ptmx), no other
 * session's /dev/pts/N, not the descriptor the server inherited from whoever started it; and
 * what they write into any descriptor they do hold never reaches another session's screen.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FIXTURES } from '../helpers/paths.js';
import { linuxOnly } from '../helpers/processes.js';
import { type Harness, startServer } from '../helpers/server.js';
import { screenText } from '../helpers/tool-calls.js';

const SH = { shell: '/bin/sh', login: false };
/** A descriptor the server inherits from its parent without close-on-exec, as a careless client leaves one. */
const INHERITED_FD = 47;
const LAUNCHER = ['/bin/bash', '-c', `exec ${INHERITED_FD}>/dev/null; exec "$@"`, 'bash'];

describe('a program holds only its own terminal', { skip: linuxOnly }, () => {
  let h: Harness;
  before(async () => {
    h = await startServer({ prefix: LAUNCHER });
  });
  after(async () => {
    await h.close();
  });

  /** Starts fd-probe.py and returns what it reports: descriptors beyond 0-2, and its terminal. */
  async function probe(marker: string): Promise<{ id: string; fds: string[]; tty: string }> {
    const { id } = await h.start({
      command: `python3 ${join(FIXTURES, 'fd-probe.py')} ${marker}; exec sleep 60`,
      ...SH,
      cols: 200,
      settleMs: 50,
    });
    const snap = await h.waitFor(id, (s) => /probed \d+/.test(screenText(s)), 20_000);
    const text = screenText(snap);
    return {
      id,
      fds: text.split('\n').filter((line) => line.startsWith('fd ')),
      tty: /tty (\S+)/.exec(text)?.[1] ?? '',
    };
  }

  /** A program that shows on its screen whatever reaches its terminal's input. */
  async function listener(): Promise<string> {
    const { id } = await h.start({ command: 'cat', ...SH, settleMs: 50 });
    return id;
  }

  async function closeAll(ids: readonly string[]): Promise<void> {
    for (const id of ids) await h.call('terminal_close', { sessionId: id });
  }

  async function assertNothingInjected(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      const text = screenText(await h.snapshot(id, { settleMs: 200 }));
      assert.doesNotMatch(text, /INJECTED/, `input reached ${id}: ${text}`);
    }
  }

  it('beside running sessions', async () => {
    const listeners = [await listener(), await listener()];
    const first = await probe('beside');
    try {
      assert.match(first.tty, /^\/dev\/pts\/\d+$/);
      await assertNothingInjected(listeners);
      assert.deepEqual(first.fds, [], `${first.id} (${first.tty}) was started holding these`);
    } finally {
      await closeAll([...listeners, first.id]);
    }
  });

  it('in the descriptor numbers a closed session left free', async () => {
    const [gone, kept, later] = [await listener(), await listener(), await listener()];
    await h.call('terminal_close', { sessionId: gone });
    const second = await probe('reused');
    const third = await probe('again');
    try {
      await assertNothingInjected([kept, later, second.id]);
      assert.deepEqual(second.fds, [], `${second.id} (${second.tty}) was started holding these`);
      assert.deepEqual(third.fds, [], `${third.id} (${third.tty}) was started holding these`);
    } finally {
      await closeAll([kept, later, second.id, third.id]);
    }
  });
});
