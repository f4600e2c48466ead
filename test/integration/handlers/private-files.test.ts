/**
 * A session's private directories (its shell history, which holds the commands typed, its
 * shell start-up files and its transcript files) can be removed at once, synchronously: what a server exiting before its
 * sessions finished closing does once their processes are killed (serve.ts).
 * Contract: spec/tools.md (Shell history), spec/guarantees.md (Guarantees: shutdown).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type InMemoryServer, startInMemoryServer } from '../../helpers/in-memory-server.js';
import { screenText } from '../../helpers/tool-calls.js';

const T = { timeout: 30_000 };

describe("a session's private directories", () => {
  let s: InMemoryServer;
  let tmp: string;
  const saved = process.env.TMPDIR;
  before(async () => {
    // This process's own temporary directory: what is in it was made by these sessions.
    tmp = mkdtempSync(join(tmpdir(), 'agent-tty-private-'));
    process.env.TMPDIR = tmp;
    s = await startInMemoryServer();
  });
  after(async () => {
    assert.deepEqual(await s.close(), [], 'no process of any session is left');
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    rmSync(tmp, { recursive: true, force: true });
  });

  it('are removed at once for every open session, without waiting for close', T, async () => {
    // The first shell prints marks: its start-up files go at its first prompt. The second
    // replaces itself with a shell that prints none, so its start-up directory stays until now.
    const homes = ['home', 'home-exec'];
    mkdirSync(join(tmp, 'home'));
    mkdirSync(join(tmp, 'home-exec'));
    writeFileSync(join(tmp, 'home-exec', '.bashrc'), 'exec bash --norc --noprofile\n');
    const ids: string[] = [];
    for (const home of homes) {
      const started = await s.call('terminal_start', {
        shell: '/bin/bash',
        login: false,
        env: { HOME: join(tmp, home), PS1: '$ ' },
      });
      const id = started.data.sessionId as string;
      await s.waitFor(id, (x) => /[$#] ?$/m.test(screenText(x)));
      ids.push(id);
    }
    const made = readdirSync(tmp).filter((name) => !homes.includes(name));
    for (const id of ids) {
      assert.ok(
        made.some((name) => name.startsWith(`agent-tty-history-${id}-`)),
        `${made}`,
      );
      assert.ok(
        made.some((name) => name.startsWith(`agent-tty-transcript-${id}-`)),
        `${made}`,
      );
    }
    assert.deepEqual(
      ids.map((id) => made.some((name) => name.startsWith(`agent-tty-shell-${id}-`))),
      [false, true],
      `${made}`,
    );
    s.registry.removePrivateFiles();
    assert.deepEqual(readdirSync(tmp).sort(), homes);
    for (const sessionId of ids) await s.call('terminal_close', { sessionId });
  });
});
