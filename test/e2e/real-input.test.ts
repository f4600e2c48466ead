/**
 * Input as real programs see it: a curses program gets a click at the right cell, vim moves its
 * cursor on a click, bash runs pasted lines only on Enter, and cancelling a request stops its
 * batch without closing the session. The heavy layer (test/helpers/layers.ts) tries the Ctrl+C
 * race 15 times where npm test tries it 3 times, and cancels through the SDK's AbortController,
 * whose notifications/cancelled npm test sends in test/e2e/faults.test.ts ("faults on a raw
 * connection": "stops a cancelled batch before its next action; the session stays usable") and
 * test/integration/handlers/input.test.ts ("stops a batch the client cancels with CANCELLED; the
 * session stays usable"); the http layer runs it too, over the HTTP transport.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { heavyOnly, trials } from '../helpers/layers.js';
import { FIXTURES } from '../helpers/paths.js';
import { which } from '../helpers/programs.js';
import { type Harness, startServer, TEST_TRANSPORT } from '../helpers/server.js';
import { screenText } from '../helpers/tool-calls.js';
import { sleep } from '../helpers/wait.js';

const missing = (p: string) => (which(p) ? false : `${p} is not installed`);

describe('input in real programs', () => {
  let h: Harness;
  let dir: string;
  before(async () => {
    h = await startServer();
    dir = mkdtempSync(join(tmpdir(), 'agent-tty-input-'));
  });
  after(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a curses program receives a click at the clicked cell', {
    skip: missing('python3'),
  }, async () => {
    const { id } = await h.start({
      command: `python3 ${join(FIXTURES, 'click.py')}`,
      login: false,
      cols: 80,
      rows: 24,
    });
    const ready = await h.waitFor(
      id,
      (s) => s.screen[0]?.startsWith('READY') === true && s.mouse !== undefined,
    );
    assert.ok(ready.mouse, 'mouse reporting is on');
    await h.input(id, [{ type: 'mouse', event: 'click', row: 7, column: 33 }]);
    await h.waitFor(id, (s) => screenText(s).includes('CLICK 7 33'));
    await h.input(id, [{ type: 'mouse', event: 'click', row: 20, column: 2 }]);
    await h.waitFor(id, (s) => screenText(s).includes('CLICK 20 2'));
    await h.call('terminal_close', { sessionId: id });
  });

  it('vim with mouse=a moves its cursor to a clicked cell', { skip: missing('vim') }, async () => {
    const file = join(dir, 'lines.txt');
    writeFileSync(
      file,
      `${Array.from({ length: 10 }, (_, i) => `line number ${i + 1}`).join('\n')}\n`,
    );
    const { id } = await h.start({
      command: `vim -Nu NONE -i NONE -c 'set mouse=a' ${file}`,
      login: false,
      cols: 80,
      rows: 24,
    });
    await h.waitFor(id, (s) => s.screen[0] === 'line number 1' && s.mouse !== undefined);
    const reply = await h.input(id, [{ type: 'mouse', event: 'click', row: 6, column: 9 }]);
    assert.equal(reply.isError, false, reply.text);
    const moved = await h.waitFor(id, (s) => s.cursor.row === 6 && s.cursor.column === 9);
    assert.ok(moved);
    await h.input(id, [
      { type: 'text', text: ':q!' },
      { type: 'key', key: 'Enter' },
    ]);
    await h.call('terminal_close', { sessionId: id });
  });

  it('bash runs pasted lines only on Enter', { skip: missing('bash') }, async () => {
    const { id } = await h.start({ shell: '/bin/bash', login: false, cols: 80, rows: 20 });
    await h.waitFor(id, (s) => /[$#] ?$/.test(screenText(s)));
    const pasted = await h.input(
      id,
      [{ type: 'paste', text: 'echo one-$((1+1))\necho two-$((1+2))\n' }],
      {
        settleMs: 400,
      },
    );
    const before = screenText(pasted.data.snapshot ?? (await h.snapshot(id)));
    assert.doesNotMatch(before, /^one-2$/m, `pasted lines did not run yet:\n${before}`);
    assert.match(before, /echo one-\$\(\(1\+1\)\)/);
    await h.input(id, [{ type: 'key', key: 'Enter' }]);
    const ran = await h.waitFor(id, (s) => /^two-3$/m.test(screenText(s)));
    assert.match(screenText(ran), /^one-2$/m);
    await h.call('terminal_close', { sessionId: id });
  });

  it(`a command typed right after Ctrl+C at a bash prompt runs whole (${trials(15, 3)} trials)`, {
    skip: missing('bash'),
  }, async () => {
    // bash drops the first key that arrives while it handles SIGINT: `echo` ran as `cho` in about
    // one batch of five when the keys followed Ctrl+C at once on a machine at load 10. Each
    // trial's Ctrl+C follows the last one's output at once, so it may reach bash while it runs
    // PROMPT_COMMAND, where bash keeps it pending and drops the next key unless it is held.
    const { id } = await h.start({ shell: '/bin/bash', login: false, cols: 80, rows: 20 });
    const lost: string[] = [];
    for (let trial = 0; trial < trials(15, 3); trial++) {
      const ran = await h.input(
        id,
        [
          { type: 'key', key: 'c', modifiers: ['Ctrl'] },
          { type: 'text', text: `echo o""k-${trial}` },
          { type: 'key', key: 'Enter' },
          { type: 'wait', pattern: `^ok-${trial}$`, timeoutMs: 10_000, stopOnInput: false },
        ],
        { settleMs: 0 },
      );
      if (ran.isError) lost.push(`trial ${trial}: ${ran.text.slice(0, 1500)}`);
    }
    assert.deepEqual(lost, []);
    await h.call('terminal_close', { sessionId: id });
  });

  it('cancelling a request stops its batch and keeps the session', {
    // The http layer runs it too: there the cancellation goes through the HTTP transport.
    skip: TEST_TRANSPORT === 'http' ? false : heavyOnly,
  }, async () => {
    const { id } = await h.start({ command: 'cat', login: false, cols: 40, rows: 5 });
    const controller = new AbortController();
    const call = h.client.callTool(
      {
        name: 'terminal_input',
        arguments: {
          sessionId: id,
          actions: [
            { type: 'text', text: 'first' },
            { type: 'wait', durationMs: 3000 },
            { type: 'text', text: 'second' },
          ],
        },
      },
      undefined,
      { signal: controller.signal },
    );
    await sleep(400);
    controller.abort();
    await assert.rejects(call);
    await sleep(3000);
    const snap = await h.snapshot(id, { settleMs: 100 });
    assert.equal(snap.screen[0], 'first', 'the batch stopped at the cancelled wait');
    const reply = await h.input(id, [{ type: 'text', text: '+more' }]);
    assert.equal(reply.isError, false);
    assert.equal(reply.data.snapshot?.screen[0], 'first+more');
    await h.call('terminal_close', { sessionId: id });
  });
});
