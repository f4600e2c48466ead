/**
 * `agent-tty attach`: a person watches and types into an agent's session. The CLI runs in a real
 * PTY and its output is rendered by a second emulator (helpers/watcher.ts), so each test compares
 * what the person sees with what the agent's snapshot says, and checks what each side's input
 * does to the other. The groups of tests run side by side, each with a server of its own.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SERVER } from '../helpers/paths.js';
import { fixtureCommand, needsPython, python, which } from '../helpers/programs.js';
import { type Harness, startServer } from '../helpers/server.js';
import { type Snapshot, screenText, type ToolReply } from '../helpers/tool-calls.js';
import { sleep, waitUntil } from '../helpers/wait.js';
import { openWatcher, type WatcherTerminal } from '../helpers/watcher.js';

const missing = (program: string) => (which(program) ? false : `${program} is not installed`);
const BASH = 'bash --norc --noprofile';

type View = Pick<Snapshot, 'screen' | 'styles' | 'spans' | 'cursor'>;

/** A screen's rows (the first `rows`) with each styled span resolved to its style. */
function resolved(view: View, rows: number) {
  const screen = view.screen.slice(0, rows);
  while (screen.length > 0 && screen.at(-1) === '') screen.pop();
  return {
    screen,
    spans: (view.spans ?? [])
      .filter(([row]) => row <= rows)
      .map(([row, col, width, style]) => [row, col, width, view.styles?.[style]]),
    cursor: view.cursor,
  };
}

/** A pattern written with `ESC` for the escape character (a regular expression literal may not hold it). */
function withEsc(source: string, flags = ''): RegExp {
  return new RegExp(source.replaceAll('ESC', '\x1b'), flags);
}

/**
 * Every escape sequence and control character in what a person's terminal was sent, as written
 * (line ends aside): CSI sequences, strings (OSC ended by BEL or ST; DCS, SOS, PM, APC by ST),
 * other escapes, and lone controls, C1 included.
 */
function terminalControls(output: string): string[] {
  const pattern = withEsc(
    [
      String.raw`ESC\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]`,
      String.raw`ESC\][^\x07ESC]*(?:\x07|ESC\\)?`,
      String.raw`ESC[PX^_][\s\S]*?(?:ESC\\|$)`,
      String.raw`ESC[\x20-\x2f]*[\x30-\x7e]?`,
      String.raw`[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f]`,
    ].join('|'),
    'g',
  );
  return output.match(pattern) ?? [];
}

/**
 * What the person's terminal may be sent (spec/attach.md): the frames' own sequences (a
 * synchronized update, the cursor hidden and shown, rows placed, cleared and drawn with SGR and
 * the moves and erases @xterm/addon-serialize draws a row with, the status line with autowrap
 * off, the keyboard and mouse modes), and the attach command's alternate screen and saved title.
 */
const PERSON_TERMINAL_SEQUENCES = [
  String.raw`ESC\[\?(?:2026|25|7|1|2004|1004|9|1000|1002|1003|1005|1006|1015|1016|1049)[hl]`,
  'ESC[=>]',
  String.raw`ESC\[(?:\d+;\d+)?H`,
  String.raw`ESC\[2[JK]`,
  String.raw`ESC\[[\d;:]*m`,
  String.raw`ESC\[\d*[ABCDX]`,
  String.raw`ESC\[2[23];0t`,
].map((source) => withEsc(`^${source}$`));

/** Polls `check` every 100 ms until it resolves true; throws naming `what` after `timeoutMs`. */
async function waitUntilAsync(check: () => Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(100);
  }
}

/** Waits for the attach socket of server `pid` in `dir`/sockets. */
function socketOf(dir: string, pid: number): Promise<void> {
  return waitUntil(() => {
    try {
      return statSync(join(dir, 'sockets', `${pid}.sock`)).isSocket();
    } catch {
      return false;
    }
  }, 'the attach socket');
}

// Side by side: the groups share nothing but the machine, and the last two mostly wait.
describe('attach', { concurrency: true }, () => {
  /**
   * The tests against one server, in two halves that run side by side, each on a server of its
   * own: `half` says which of them this group holds.
   */
  function onItsOwnServer(name: string, half: 1 | 2): void {
    describe(name, { concurrency: 1 }, () => {
      let h: Harness;
      let dir: string;
      let env: Record<string, string>;
      const watchers: WatcherTerminal[] = [];
      const watch = (args: string[], cols = 80, rows = 24, extraEnv = env) => {
        const w = openWatcher(args, { env: extraEnv, cols, rows });
        watchers.push(w);
        return w;
      };
      const attachCli = (args: string[], extraEnv = env) => {
        try {
          return {
            code: 0,
            out: execFileSync(process.execPath, [SERVER, 'attach', ...args], {
              env: { ...process.env, ...extraEnv },
              encoding: 'utf8',
              stdio: ['ignore', 'pipe', 'pipe'],
            }),
          };
        } catch (err) {
          const e = err as { status: number; stdout: string; stderr: string };
          return { code: e.status, out: `${e.stdout}${e.stderr}` };
        }
      };

      before(async () => {
        dir = mkdtempSync(join(tmpdir(), 'agent-tty-attach-'));
        env = { AGENT_TTY_SOCKET_DIR: join(dir, 'sockets') };
        h = await startServer({ env });
        await socketOf(dir, h.pid);
      });
      after(async () => {
        for (const w of watchers) w.kill();
        await h.close();
        rmSync(dir, { recursive: true, force: true });
      });

      /** The person detaches (Ctrl-\\, exit code 0), then the agent closes the session. */
      async function detachAndClose(w: WatcherTerminal, id: string): Promise<void> {
        w.type('\x1c');
        assert.equal(await w.exited, 0);
        await h.call('terminal_close', { sessionId: id });
      }

      /** The colour TUI fixture at 80x24, drawn. */
      async function startColourTui(): Promise<string> {
        const { id } = await h.start({
          command: fixtureCommand('colour-tui.py'),
          cols: 80,
          rows: 24,
          login: false,
        });
        await h.waitFor(id, (s) => /press q to quit/.test(screenText(s)));
        return id;
      }

      /** Waits until the person's screen equals the agent's snapshot, text, styles and cursor. */
      async function sameScreen(w: WatcherTerminal, id: string): Promise<Snapshot> {
        let last = '';
        const deadline = Date.now() + 10_000;
        while (Date.now() < deadline) {
          const snapshot = await h.snapshot(id, { settleMs: 100 });
          const want = resolved(snapshot, snapshot.rows);
          const got = resolved(w.view(), snapshot.rows);
          last = `agent:   ${JSON.stringify(want)}\nwatcher: ${JSON.stringify(got)}`;
          if (JSON.stringify(want) === JSON.stringify(got)) return snapshot;
          await sleep(50);
        }
        throw new Error(`the watcher's screen never matched the snapshot\n${last}`);
      }

      if (half === 1) {
        it('lists the server and its sessions', async () => {
          const { id } = await h.start({ command: BASH, cols: 80, rows: 24, login: false });
          const listed = attachCli([]);
          assert.equal(listed.code, 0, listed.out);
          assert.match(listed.out, new RegExp(`server ${h.pid} \\(agent-tty-tests`));
          assert.match(
            listed.out,
            new RegExp(`${id} +running +80x24 +changed .* bash --norc --noprofile`),
          );
          const list = await h.call('terminal_list');
          const info = list.data.sessions?.find((s) => s.sessionId === id);
          assert.equal(info?.attach, `agent-tty attach ${id}`);
          assert.match(list.text, new RegExp(`attach: agent-tty attach ${id}`));
          await h.call('terminal_close', { sessionId: id });
        });

        it('shows a shell exactly as the agent sees it, and what the person types reaches it', async () => {
          const { id } = await h.start({ command: BASH, cols: 80, rows: 24, login: false });
          await h.input(id, [
            {
              type: 'text',
              text: "PS1='$ '; printf '\\e[1;31mred\\e[0m \\e[42mgreen bg\\e[0m plain\\n'",
            },
            { type: 'key', key: 'Enter' },
          ]);
          const w = watch([id]);
          await sameScreen(w, id);
          w.type('echo typed-by-person\r');
          // Watched on the person's screen: every agent result reports (and clears) personTyped.
          await w.waitForText(/^typed-by-person$/m);
          const reply = await h.call('terminal_snapshot', { sessionId: id });
          assert.match(screenText(reply.data.snapshot as Snapshot), /^typed-by-person$/m);
          assert.equal(reply.data.watchers, 1, JSON.stringify(reply.data));
          assert.equal(reply.data.personTyped, true);
          assert.deepEqual(Object.keys(reply.data).slice(0, 3), [
            'sessionId',
            'watchers',
            'personTyped',
          ]);
          assert.match(
            reply.text.split('\n')[0] ?? '',
            new RegExp(
              `^a person attached \\(agent-tty attach ${id}\\) typed since your last call`,
            ),
          );
          const again = await h.call('terminal_snapshot', { sessionId: id, settleMs: 0 });
          assert.equal(again.data.personTyped, undefined, 'told once, then it starts over');
          assert.equal(again.data.watchers, 1);
          assert.match(again.text.split('\n')[0] ?? '', /^a person is watching/);
          // The agent types too: the person sees it.
          await h.input(id, [{ type: 'text', text: 'echo from-agent\r' }]);
          await sameScreen(w, id);
          w.type('\x1c');
          assert.equal(await w.exited, 0);
          assert.match(w.output(), new RegExp(`detached from ${id}; it keeps running`));
          // The server learns of the detach when the connection closes, a moment after the exit.
          let later = await h.call('terminal_snapshot', { sessionId: id, settleMs: 0 });
          const deadline = performance.now() + 5000;
          while (later.data.watchers !== undefined && performance.now() < deadline) {
            await sleep(20);
            later = await h.call('terminal_snapshot', { sessionId: id, settleMs: 0 });
          }
          assert.equal(
            later.data.snapshot?.status,
            'running',
            'detaching leaves the session running',
          );
          assert.equal(later.data.watchers, undefined);
          await h.call('terminal_close', { sessionId: id });
        });

        it('shows vim with its colours, and keys typed there edit the file', {
          skip: missing('vim'),
        }, async () => {
          const file = join(dir, 'hello.py');
          writeFileSync(file, 'def greet(name):\n    # say hello\n    return f"hello {name}"\n');
          const { id } = await h.start({
            command: `vim --clean ${file}`,
            cols: 80,
            rows: 24,
            login: false,
          });
          await h.waitFor(id, (s) => /say hello/.test(screenText(s)));
          const w = watch([id]);
          const shown = await sameScreen(w, id);
          assert.ok((shown.spans ?? []).length > 0, 'vim colours the syntax');
          w.type('Oprint("typed in vim")\x1b');
          await h.waitFor(id, (s) => /print\("typed in vim"\)/.test(screenText(s)));
          await sameScreen(w, id);
          w.type(':wq\r');
          await w.exited;
          assert.match(w.output(), /exited with code 0/);
          await h.call('terminal_close', { sessionId: id });
        });

        it('cuts a session line to a narrow terminal, the command last', async () => {
          const { id } = await h.start({
            command: `${BASH} # ${'a long comment '.repeat(8)}`,
            cols: 80,
            rows: 24,
            login: false,
          });
          const w = watch([], 53, 20);
          assert.equal(await w.exited, 0);
          const line = w.rows().find((r) => r.startsWith(`  ${id} `));
          assert.ok(line, w.rows().join('\n'));
          assert.equal([...line].length, 53, line);
          assert.match(line, /changed .* bash …$/);
          await h.call('terminal_close', { sessionId: id });
        });

        it("shows the agent's command with its controls made visible, never sent to the person's terminal", async () => {
          // A command carrying terminal escapes (a clipboard write, a title, a screen clear) in a comment.
          const hostile = '\u001b]52;c;cHduZWQ=\u0007\u001b]0;pwned\u0007\u001b[2J';
          const { id } = await h.start({
            command: `${BASH} # ${hostile}`,
            cols: 60,
            rows: 10,
            login: false,
          });
          const listed = attachCli([]);
          assert.equal(listed.code, 0, listed.out);
          assert.ok(!listed.out.includes('\u001b'), 'no escape in the listing');
          assert.match(listed.out, /# \u241b\]52;c;cHduZWQ=\u2407\u241b\]0;pwned\u2407\u241b\[2J/);
          const w = watch([id], 80, 12);
          await w.waitForText(/agent-tty · .* # \u241b\]52;c;/);
          assert.ok(!w.output().includes('\u001b]52'), 'no clipboard write reached the terminal');
          assert.ok(!w.output().includes(']0;pwned'), 'no title reached the terminal');
          await detachAndClose(w, id);
        });

        it('shows a person the text the agent reads: hidden and reordering characters as its stand-ins, in its columns', {
          skip: needsPython,
        }, async () => {
          const { id } = await h.start({
            command: fixtureCommand('hidden-text.py'),
            cols: 80,
            rows: 24,
            login: false,
          });
          await h.waitFor(id, (s) => /\[y\/N\]/.test(screenText(s)));
          const snapshot = await h.snapshot(id, { settleMs: 100 });
          // The agent's stand-in (U+FFFD) for each character that could hide or reorder text; one
          // joined to the character before it takes no cell.
          assert.deepEqual(snapshot.screen, [
            'pay 10\uFFFD0001\uFFFD to bob',
            '\uFFFDisolated\uFFFD start',
            'zero\uFFFDwidth',
            'tag\uFFFD\uFFFD\uFFFDs',
            'alm\uFFFDbomend',
            'c1 bold ok',
            'nel',
            'next',
            'send 10\uFFFD0001\uFFFD to bob? [y/N]',
          ]);
          // The person's terminal gets the same text: the stand-in in a cell a character took of its
          // own, nothing for one that took none, so every column is the agent's.
          const person = [
            'pay 100001 to bob',
            '\uFFFDisolated start',
            'zerowidth',
            'tags',
            'almbomend',
            'c1 bold ok',
            'nel',
            'next',
            'send 100001 to bob? [y/N]',
          ];
          const w = watch([id], 80, 24);
          await w.waitForText(/^send/m);
          const shown = await w.rawScreen();
          assert.deepEqual(shown.rows.slice(0, 9), person);
          assert.deepEqual(shown.cursor, {
            row: snapshot.cursor.row,
            column: snapshot.cursor.column,
          });
          assert.equal(
            shown.cursor.column,
            27,
            'the cursor right after the prompt, as the agent has it',
          );
          const hidden =
            /[\u0080-\u009f\u061c\u200b\u2066-\u2069\u202a-\u202e\ufeff]|[\u{e0000}-\u{e007f}]/u;
          assert.doesNotMatch(w.output(), hidden, 'nothing that hides or reorders text reached it');
          // A terminal too small for the screen is shown the cursor's line: the same text.
          const small = watch([id], 40, 12);
          await small.waitForText(/the line with the cursor/);
          const line = await small.rawScreen();
          const at = line.rows.findIndex((r) => r.startsWith('the line with the cursor'));
          assert.equal(line.rows[at + 1], 'send 100001 to bob? [y/N]');
          assert.deepEqual(line.cursor, { row: at + 2, column: 27 });
          assert.doesNotMatch(small.output(), hidden);
          small.type('\x1c');
          assert.equal(await small.exited, 0);
          w.type('y\r');
          await h.waitFor(id, (s) => /^answer: y$/m.test(screenText(s)));
          assert.equal(await w.exited, 0);
          await h.call('terminal_close', { sessionId: id });
        });

        it("lets a hostile program's output reach the person's terminal only as frame sequences", {
          skip: needsPython,
        }, async () => {
          const { id } = await h.start({ command: BASH, cols: 80, rows: 24, login: false });
          const w = watch([id], 80, 25);
          await w.waitForText(/\$|#/);
          // Run while watched: a reset, clipboard, title, hyperlink, DCS, APC, PM, SOS, queries,
          // window operations and modes left on, then END in red, on either screen.
          for (const screen of ['alternate', 'normal']) {
            const command = fixtureCommand('hostile.py', 'attach', screen);
            const ran = await h.input(
              id,
              [
                { type: 'text', text: `${command}\r` },
                { type: 'wait', pattern: '^END$' },
              ],
              { settleMs: 0 },
            );
            assert.equal(ran.isError, false, `${screen}: ${ran.text}`);
            await w.waitForText(/^END$/m);
            const prompt = { type: 'wait', pattern: '[$#] $' };
            const back = await h.input(id, [{ type: 'text', text: 'q' }, prompt], { settleMs: 0 });
            assert.equal(back.isError, false, `${screen}, q: ${back.text}`);
          }
          w.type('\x1c');
          assert.equal(await w.exited, 0);
          const output = w.output();
          const title = `\x1b]2;agent-tty attach ${id} · Ctrl-\\ detaches\x07`;
          const stray = terminalControls(output).filter(
            (c) => c !== title && !PERSON_TERMINAL_SEQUENCES.some((allowed) => allowed.test(c)),
          );
          assert.deepEqual(
            [...new Set(stray)].map((c) => JSON.stringify(c)),
            [],
          );
          // The modes the program left on reach the person as a frame sets them, and END in its red.
          for (const mode of ['\x1b[?1h', '\x1b=', '\x1b[?2004h', '\x1b[?1004h', '\x1b[?1006h']) {
            assert.ok(output.includes(mode), `the frames set ${JSON.stringify(mode)}`);
          }
          assert.match(output, withEsc(String.raw`ESC\[[\d;]*31[\d;]*mEND`));
          await h.call('terminal_close', { sessionId: id });
        });

        it('shows a colour TUI on a larger terminal, with a status line below it', {
          skip: needsPython,
        }, async () => {
          const id = await startColourTui();
          const w = watch([id], 100, 30);
          await sameScreen(w, id);
          await w.waitForText(
            new RegExp(`^ agent-tty · ${id} · 80x24 · Ctrl-\\\\ detaches\\. · .*python`, 'm'),
          );
          // The person's terminal is put in the program's keyboard modes (application cursor keys),
          // so its keys reach the program as the program asked for them.
          w.press('Up');
          await h.waitFor(id, (s) => /keys: '\\x1bOA'/.test(screenText(s)));
          await sameScreen(w, id);
          w.type('q');
          await w.exited;
          await h.call('terminal_close', { sessionId: id });
        });

        it('tells a terminal too small for the session how large it must be', {
          skip: needsPython,
        }, async () => {
          const id = await startColourTui();
          const w = watch([id], 60, 20);
          await w.waitForText(/this session is 80x24 and this terminal is 60x20/);
          assert.match(w.rows().join(' '), /Make the terminal at least 80x24/);
          w.resize(80, 24);
          await sameScreen(w, id);
          await detachAndClose(w, id);
        });

        it('shows a terminal too small for the session the line the cursor is on, and what is typed there', async () => {
          // A 120x40 session (the default size) at a prompt whose cursor is past column 60.
          const { id } = await h.start({ command: BASH, cols: 120, rows: 40, login: false });
          await h.input(id, [
            { type: 'text', text: `read -p "${'.'.repeat(50)} name? " n; echo "hello $n"\r` },
            { type: 'wait', pattern: 'name\\? $' },
          ]);
          const w = watch([id], 60, 20);
          await w.waitForText(/this session is 120x40/);
          await w.waitForText(/^the line with the cursor \(row \d+ of 40\):$/m);
          // The row is cut to hold the cursor, which stands right after the prompt.
          await w.waitForText(/\.\.\. name\?$/m);
          w.type('ada');
          await w.waitForText(/ name\? ada$/m);
          const rows = w.rows();
          const at = rows.findIndex((r) => / name\? ada$/.test(r));
          // 1-based, as snapshots give it: just after what was typed.
          assert.deepEqual(w.view().cursor, {
            row: at + 1,
            column: (rows[at]?.length ?? 0) + 1,
            visible: true,
          });
          w.type('\r');
          await h.waitFor(id, (s) => /^hello ada$/m.test(screenText(s)));
          await detachAndClose(w, id);
        });

        it("follows the agent's resizes: redrawn at the new size, or told when it no longer fits", async () => {
          const { id } = await h.start({ command: BASH, cols: 80, rows: 24, login: false });
          await h.input(id, [{ type: 'text', text: `printf '%s\\n' ${'x'.repeat(150)}\r` }]);
          const w = watch([id], 100, 30);
          await sameScreen(w, id);
          await h.call('terminal_resize', { sessionId: id, cols: 90, rows: 20 });
          await sameScreen(w, id);
          await w.waitForText(new RegExp(`^ agent-tty · ${id} · 90x20 · `, 'm'));
          await h.call('terminal_resize', { sessionId: id, cols: 120, rows: 40 });
          await w.waitForText(/this session is 120x40 and this terminal is 100x30/);
          await h.call('terminal_resize', { sessionId: id, cols: 80, rows: 24 });
          await sameScreen(w, id);
          await detachAndClose(w, id);
        });
      } else {
        it('--read-only watches without sending anything', async () => {
          const { id } = await h.start({ command: BASH, cols: 80, rows: 24, login: false });
          const w = watch(['--read-only', id], 80, 25);
          await sameScreen(w, id);
          await w.waitForText(new RegExp(`^ agent-tty · ${id} · 80x24 · read-only · `, 'm'));
          w.type('echo should-not-run\r');
          await sleep(500);
          const reply = await h.call('terminal_snapshot', { sessionId: id });
          assert.doesNotMatch(screenText(reply.data.snapshot as Snapshot), /should-not-run/);
          assert.equal(reply.data.personTyped, undefined);
          assert.equal(reply.data.watchers, 1);
          await detachAndClose(w, id);
        });

        it('shows two watchers the same screen', async () => {
          const { id } = await h.start({ command: BASH, cols: 80, rows: 24, login: false });
          const a = watch([id]);
          const b = watch([id]);
          await sameScreen(a, id);
          await sameScreen(b, id);
          a.type('echo from-a\r');
          await b.waitForText(/^from-a$/m);
          const reply = await h.call('terminal_snapshot', { sessionId: id });
          assert.equal(reply.data.watchers, 2);
          assert.match(reply.text.split('\n')[0] ?? '', /^a person attached/);
          await sameScreen(a, id);
          await sameScreen(b, id);
          assert.deepEqual(a.rows().slice(0, 24), b.rows().slice(0, 24));
          await h.call('terminal_close', { sessionId: id });
          await Promise.all([a.exited, b.exited]);
        });

        it('tells a watcher when the agent closes the session', async () => {
          const { id } = await h.start({ command: BASH, cols: 80, rows: 24, login: false });
          const w = watch([id]);
          await sameScreen(w, id);
          await h.call('terminal_close', { sessionId: id });
          assert.equal(await w.exited, 0, w.output());
          assert.match(w.output(), new RegExp(`the agent closed session ${id}; it is gone`));
        });

        it('tells a watcher when the program exits, and leaves its last screen in view', async () => {
          const { id } = await h.start({ command: BASH, cols: 80, rows: 24, login: false });
          const w = watch([id]);
          await sameScreen(w, id);
          w.type('echo last-words; exit 3\r');
          assert.equal(await w.exited, 0);
          assert.match(w.output(), /last-words/);
          assert.match(w.output(), new RegExp(`the program in session ${id} exited with code 3`));
          const reply = await h.call('terminal_snapshot', { sessionId: id, settleMs: 0 });
          assert.equal(reply.data.snapshot?.status, 'exited');
          await h.call('terminal_close', { sessionId: id });
        });

        it('hands a password prompt to a person: the agent waits for the exit as it types, and sees the answer, never the password', {
          skip: needsPython,
        }, async () => {
          const replies: ToolReply[] = [];
          const started = await h.call('terminal_start', {
            command: `${python()} -c "import getpass; print('ok', len(getpass.getpass()))"`,
            cols: 80,
            rows: 24,
            login: false,
            waitForExit: true,
            timeoutMs: 10_000,
          });
          replies.push(started);
          const id = started.data.sessionId as string;
          if (process.platform === 'linux') {
            assert.equal(started.data.inputRequired, true, started.text);
            assert.match(
              started.text,
              new RegExp(`ask your user to run \`agent-tty attach ${id}\``),
            );
          }
          const w = watch([id]);
          await w.waitForText(/Password:/);
          // The agent's ordinary wait for the exit, with a person attached who may type: it does not
          // end at once as "waiting for input" (the program waits for the person), but with the exit.
          const waiting = h.input(id, [{ type: 'wait', exit: true, timeoutMs: 20_000 }]);
          await sleep(1500);
          w.type('hunter2\r');
          const answered = await waiting;
          replies.push(answered);
          assert.equal(answered.isError, false, answered.text);
          assert.equal(answered.data.personTyped, true, answered.text);
          assert.equal(answered.data.snapshot?.exitCode, 0);
          const done = await h.waitFor(id, (s) => s.status === 'exited');
          assert.match(screenText(done), /^ok 7$/m);
          replies.push(await h.call('terminal_snapshot', { sessionId: id, scrollbackLines: 100 }));
          replies.push(await h.call('terminal_list'));
          replies.push(await h.call('terminal_snapshot', { sessionId: id, historySince: 0 }));
          for (const reply of replies) {
            const wire = JSON.stringify(reply.result);
            assert.doesNotMatch(wire, /hunter2/, 'no result shows what the person typed');
          }
          assert.doesNotMatch(w.output(), /hunter2/, "nor does the person's own screen");
          await h.call('terminal_close', { sessionId: id });
        });

        it('ends watchers with one line when the server exits, and cleans up after a killed one', async () => {
          const own = { AGENT_TTY_SOCKET_DIR: join(dir, 'sockets-2') };
          const second = await startServer({ env: own });
          const { id } = await second.start({ command: BASH, cols: 80, rows: 24, login: false });
          const socket = join(dir, 'sockets-2', `${second.pid}.sock`);
          await waitUntil(() => attachCli([], own).out.includes(`server ${second.pid}`), 'listed');
          const w = watch([id], 80, 24, own);
          await w.waitForText(/\$|#/);
          await second.close();
          assert.equal(await w.exited, 0);
          assert.match(w.output(), /the agent-tty server \(pid \d+\) is shutting down/);
          await waitUntil(() => {
            try {
              statSync(socket);
              return false;
            } catch {
              return true;
            }
          }, 'the socket is removed when the server exits');

          const third = await startServer({ env: own });
          await third.start({ command: BASH, cols: 80, rows: 24, login: false });
          const thirdSocket = join(dir, 'sockets-2', `${third.pid}.sock`);
          await waitUntil(() => attachCli([], own).out.includes(`server ${third.pid}`), 'listed');
          const w2 = watch(['t1'], 80, 24, own);
          await w2.waitForText(/\$|#/);
          process.kill(third.pid, 'SIGKILL');
          assert.equal(await w2.exited, 1);
          assert.match(w2.output(), /the agent-tty server \(pid \d+\) ended; session t1 is gone/);
          assert.ok(statSync(thirdSocket).isSocket(), 'SIGKILL leaves the socket behind');
          const listed = attachCli([], own);
          assert.match(listed.out, /no agent-tty server is running for you/);
          assert.throws(() => statSync(thirdSocket), 'attach removed the stale socket');
          await third.close().catch(() => undefined);
        });

        it('names the server when two have the same session id', async () => {
          const other = await startServer({ env });
          try {
            await other.start({ command: BASH, cols: 80, rows: 24, login: false });
            const own = await h.start({ command: BASH, cols: 80, rows: 24, login: false });
            const shared = (await other.call('terminal_list')).data.sessions?.[0]
              ?.sessionId as string;
            const mine = (await h.call('terminal_list')).data.sessions?.find(
              (s) => s.sessionId === shared,
            );
            if (mine) {
              const result = attachCli([shared]);
              assert.equal(result.code, 1);
              assert.match(result.out, new RegExp(`${shared} is open in 2 servers; name one`));
              assert.match(result.out, new RegExp(`agent-tty attach ${shared}@${h.pid}`));
            }
            const list = await other.call('terminal_list');
            assert.match(list.data.sessions?.[0]?.attach ?? '', new RegExp(`@${other.pid}$`));
            const w = watch([`${shared}@${other.pid}`]);
            await w.waitForText(/\$|#/);
            w.type('\x1c');
            assert.equal(await w.exited, 0);
            await h.call('terminal_close', { sessionId: own.id });
          } finally {
            await other.close();
          }
        });

        it('makes the socket 0600 in a 0700 directory', () => {
          const socketDir = join(dir, 'sockets');
          assert.equal(statSync(socketDir).mode & 0o777, 0o700);
          assert.equal(statSync(join(socketDir, `${h.pid}.sock`)).mode & 0o777, 0o600);
        });
      }
    });
  }

  onItsOwnServer('agent-tty attach: what the person sees and types', 1);
  onItsOwnServer('agent-tty attach: watchers, prompts, and the server', 2);

  describe('agent-tty attach with a recorded session', { concurrency: 1 }, () => {
    it("records the person's keystrokes as input events", async () => {
      const dir = mkdtempSync(join(tmpdir(), 'agent-tty-attach-rec-'));
      const env = { AGENT_TTY_SOCKET_DIR: join(dir, 'sockets') };
      const h = await startServer({ env });
      try {
        const started = await h.call('terminal_start', {
          command: BASH,
          cols: 80,
          rows: 24,
          login: false,
          record: true,
        });
        const id = started.data.sessionId as string;
        const recording = (started.data as { recording?: string }).recording as string;
        await socketOf(dir, h.pid);
        const w = openWatcher([id], { env, cols: 80, rows: 24 });
        try {
          await w.waitForText(/\$|#/);
          w.type('echo person-was-here\r');
          await w.waitForText(/^person-was-here$/m);
          w.type('\x1c');
          await w.exited;
        } finally {
          w.kill();
        }
        await h.call('terminal_close', { sessionId: id });
        const events = readFileSync(recording, 'utf8')
          .trim()
          .split('\n')
          .slice(1)
          .map((line) => JSON.parse(line) as [number, string, string]);
        const typed = events
          .filter(([, kind]) => kind === 'i')
          .map(([, , data]) => data)
          .join('');
        assert.match(typed, /echo person-was-here\r/);
      } finally {
        await h.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('agent-tty attach and the idle timeout', { concurrency: 1 }, () => {
    it('keeps a session open while a person is attached, and closes it once they have left', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'agent-tty-attach-idle-'));
      const env = { AGENT_TTY_SOCKET_DIR: join(dir, 'sockets') };
      const h = await startServer({ env, args: ['--idle-timeout', '1500'] });
      try {
        const { id } = await h.start({ command: BASH, cols: 80, rows: 24, login: false });
        await socketOf(dir, h.pid);
        const w = openWatcher([id], { env, cols: 80, rows: 24 });
        try {
          // Until the person is attached, calls name the session: its idle time starts from there,
          // however long the attach command takes to start on a busy machine.
          await waitUntilAsync(async () => {
            const reply = await h.call('terminal_snapshot', { sessionId: id, settleMs: 0 });
            assert.equal(reply.isError, false, reply.text);
            return reply.data.watchers === 1;
          }, 'the person attached');
          await w.waitForText(/\$|#/);
          // Three idle timeouts with no tool call naming the session, the person watching.
          await sleep(4500);
          assert.equal(w.exitCode(), undefined, 'the person is still attached');
          w.type('echo still-here\r');
          await w.waitForText(/^still-here$/m);
          w.type('\x1c');
          assert.equal(await w.exited, 0);
        } finally {
          w.kill();
        }
        const list = await h.call('terminal_list');
        assert.deepEqual(
          list.data.sessions?.map((s) => s.sessionId),
          [id],
          'open just after the person left',
        );
        const deadline = Date.now() + 5000;
        while ((await h.call('terminal_list')).data.sessions?.length !== 0) {
          assert.ok(Date.now() < deadline, 'closed once idle without the person');
          await sleep(100);
        }
      } finally {
        await h.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
