/**
 * A login shell and one-off commands: output, styles, exit status, resize with SIGWINCH,
 * history, wide characters, settlement.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Harness, startServer } from '../helpers/server.js';
import { screenText } from '../helpers/tool-calls.js';

describe('shell', () => {
  let h: Harness;
  before(async () => {
    h = await startServer();
  });
  after(() => h.close());

  it('runs an interactive login shell and answers a command', async () => {
    const { id } = await h.start({ shell: '/bin/bash', cols: 80, rows: 24 });
    await h.waitFor(id, (s) => /[$#] ?$/.test(screenText(s)));
    const reply = await h.input(id, [
      { type: 'text', text: 'echo $((6*7)); echo "$TERM"' },
      { type: 'key', key: 'Enter' },
    ]);
    assert.equal(reply.isError, false, reply.text);
    assert.equal(reply.data.actionsCompleted, 2);
    assert.equal(reply.data.inputSent, true);
    const text = screenText(reply.data.snapshot ?? (await h.snapshot(id)));
    assert.match(text, /^42$/m);
    assert.match(text, /^xterm-256color$/m);
    await h.call('terminal_close', { sessionId: id });
  });

  it('reports styles as a legend and 1-based inclusive spans', async () => {
    const { snapshot } = await h.start({
      command: String.raw`printf 'ab\033[1;31mRED\033[0m \033[38;2;255;128;0;4mrgb\033[0m\n'`,
      cols: 40,
      rows: 4,
      login: false,
    });
    assert.equal(snapshot.status, 'exited');
    assert.equal(snapshot.screen[0], 'abRED rgb');
    const byId = (id: number) => snapshot.styles?.[id];
    const red = snapshot.spans?.find((s) => s[0] === 1 && s[1] === 3);
    assert.deepEqual(red?.slice(0, 3), [1, 3, 5]);
    assert.deepEqual(byId(red?.[3] ?? -1), { fg: 1, bold: true });
    const rgb = snapshot.spans?.find((s) => s[1] === 7);
    assert.deepEqual(rgb?.slice(0, 3), [1, 7, 9]);
    assert.deepEqual(byId(rgb?.[3] ?? -1), { fg: '#ff8000', underline: true });
    assert.equal(snapshot.spans?.length, 2, 'default-styled cells have no span');
  });

  it('reports the exit code and the killing signal', async () => {
    const code = await h.start({ command: 'exit 7', login: false });
    assert.equal(code.snapshot.status, 'exited');
    assert.equal(code.snapshot.exitCode, 7);
    const killed = await h.start({ command: 'kill -KILL $$', login: false });
    assert.equal(killed.snapshot.status, 'exited');
    assert.equal(killed.snapshot.signal, 'SIGKILL');
    assert.equal(killed.snapshot.exitCode, undefined);
    const list = await h.call('terminal_list');
    const entry = list.data.sessions?.find((s) => s.sessionId === killed.id);
    assert.equal(entry?.signal, 'SIGKILL');
    for (const id of [code.id, killed.id]) await h.call('terminal_close', { sessionId: id });
  });

  it('resizes PTY and screen together; the program sees SIGWINCH and the new size', async () => {
    const { id } = await h.start({
      command: `trap 'echo WINCH $(stty size)' WINCH; echo start; while :; do sleep 0.05; done`,
      cols: 60,
      rows: 10,
      login: false,
    });
    // The trap is set once start shows; a resize before it would go unnoticed.
    await h.waitFor(id, (s) => screenText(s).includes('start'));
    const reply = await h.call('terminal_resize', { sessionId: id, cols: 100, rows: 20 });
    assert.equal(reply.isError, false, reply.text);
    const snap = reply.data.snapshot;
    assert.equal(snap?.cols, 100);
    assert.equal(snap?.rows, 20);
    assert.ok((snap?.screen.length ?? 99) <= 20, 'at most rows rows');
    const after = await h.waitFor(id, (s) => screenText(s).includes('WINCH 20 100'));
    assert.ok(after);
    await h.call('terminal_close', { sessionId: id });
  });

  it('returns history above the screen, oldest first', async () => {
    const { id, snapshot } = await h.start({
      command: 'seq 1 100',
      cols: 20,
      rows: 5,
      login: false,
    });
    assert.equal(snapshot.status, 'exited');
    const snap = await h.snapshot(id, { scrollbackLines: 10 });
    assert.equal(snap.scrollback?.lines.length, 10);
    assert.ok((snap.scrollback?.availableLines ?? 0) >= 95);
    const visibleFirst = Number(snap.screen[0]);
    assert.equal(Number(snap.scrollback?.lines.at(-1)), visibleFirst - 1);
    assert.equal(Number(snap.scrollback?.lines[0]), visibleFirst - 10);
    await h.call('terminal_close', { sessionId: id });
  });

  it('gives wide characters two columns', async () => {
    const { snapshot } = await h.start({
      command: String.raw`printf '日本\033[32mX\033[0m🙂|\n'`,
      cols: 20,
      rows: 2,
      login: false,
      env: { LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' },
    });
    assert.equal(snapshot.screen[0], '日本X🙂|');
    const green = snapshot.spans?.[0];
    assert.deepEqual(green?.slice(0, 3), [1, 5, 5], 'X sits in column 5 after two wide characters');
    assert.equal(snapshot.cursor.row, 2);
  });

  it('settles on quiet: a slow command is still running at the first quiet interval', async () => {
    const { id, snapshot } = await h.start({
      command: 'echo begin; sleep 1; echo done',
      login: false,
    });
    // Still running: it returned after the quiet interval, not at the exit (no clock needed).
    assert.equal(snapshot.status, 'running');
    assert.equal(snapshot.settled, true);
    if (process.platform === 'linux')
      assert.equal(snapshot.waitingForInput, false, 'sleeping, not reading');
    const later = await h.snapshot(id, { settleMs: 1500, settleTimeoutMs: 5000 });
    assert.equal(later.status, 'exited');
    assert.match(screenText(later), /done/);
    await h.call('terminal_close', { sessionId: id });
  });

  it('returns settled:false at the deadline while the screen keeps changing', async () => {
    const { id } = await h.start({
      command: 'i=0; while :; do i=$((i+1)); printf "\\r%s" $i; sleep 0.02; done',
      login: false,
      settleMs: 0,
    });
    const started = Date.now();
    const snap = await h.snapshot(id, { settleMs: 300, settleTimeoutMs: 600 });
    const elapsed = Date.now() - started;
    assert.equal(snap.settled, false);
    assert.equal(snap.settle, 'timeout', 'observed: still changing at the deadline');
    assert.ok(elapsed >= 550 && elapsed < 2000, `returned at the deadline (${elapsed} ms)`);
    const instant = await h.snapshot(id, { settleMs: 0 });
    assert.equal(instant.status, 'running');
    await h.call('terminal_close', { sessionId: id });
  });
});
