/**
 * Issue 7, "Unbreakable": a program can make the server write nothing to its terminal but the
 * documented probe replies. test/fixtures/replies.py sends every query in
 * test/helpers/probe-table.ts and records each byte that comes back.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT } from '../helpers/paths.js';
import { documentedProbes, type ProbeRow, UNANSWERED_PROBES } from '../helpers/probe-table.js';
import { fixtureCommand, needsPython } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';
import { BUSY_POLL, screenText } from '../helpers/tool-calls.js';

describe('probe replies', { skip: needsPython }, () => {
  const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
  const rows: ProbeRow[] = [...documentedProbes(version), ...UNANSWERED_PROBES];
  const replies: Record<string, string | null> = {};
  let h: Harness;
  let dir: string;
  before(async () => {
    h = await startServer();
    dir = mkdtempSync(join(tmpdir(), 'agent-tty-probes-'));
    const hex = (s: string) => Buffer.from(s, 'latin1').toString('hex');
    writeFileSync(join(dir, 'probes.json'), JSON.stringify(rows.map(([n, p]) => [n, hex(p)])));
    const out = join(dir, 'replies.json');
    const command = fixtureCommand('replies.py', join(dir, 'probes.json'), out, '1.5');
    const { id } = await h.start({ command, login: false, cols: 80, rows: 24, settleMs: 0 });
    // While it listens for stray bytes: a resize and snapshots must not write to the terminal.
    await h.waitFor(id, (s) => /LINGER/.test(screenText(s)), 30_000, BUSY_POLL);
    await h.call('terminal_resize', { sessionId: id, cols: 100, rows: 30 });
    await h.snapshot(id, { scrollbackLines: 10 });
    await h.waitFor(id, (s) => s.status === 'exited', 20_000);
    const raw = JSON.parse(readFileSync(out, 'utf8')) as Record<string, string | null>;
    for (const [name, value] of Object.entries(raw)) {
      replies[name] = value === null ? null : Buffer.from(value, 'hex').toString('latin1');
    }
    await h.call('terminal_close', { sessionId: id });
  });
  after(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers exactly the documented probes, with the documented replies, and nothing else', () => {
    const expected = Object.fromEntries(
      [...documentedProbes(version), ...UNANSWERED_PROBES].map(([name, , reply]) => [name, reply]),
    );
    const actual = Object.fromEntries(Object.keys(expected).map((n) => [n, replies[n]]));
    assert.deepEqual(actual, expected);
    assert.equal(replies['(fence)'], '\x1b]4;255;rgb:eeee/eeee/eeee\x1b\\');
    assert.equal(replies['(after)'], '', 'nothing unasked, also across a resize and snapshots');
  });
});
