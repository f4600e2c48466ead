/**
 * Input reaches only its own program (spec/guarantees.md, Guarantees "Input never reaches another
 * program" and "Input and replies are bounded"), through the built server over stdio: input
 * queued for a program that never reads is discarded at close, not typed into the terminal that
 * reuses its descriptor; random interleavings of start, input, close, exit and resize across
 * sessions never show one session's text on another's screen; a full terminal refuses more input
 * with INPUT_BACKLOG and costs no CPU; a flood of cursor queries gets a bounded number of replies.
 * The model-based counterpart, with 10 000 interleavings, is test/property/pty-input.model.test.ts.
 * npm test runs one close-and-reuse trial and 3 random interleavings; the heavy layer
 * (test/helpers/layers.ts) runs 12 of each, the race being rare on any one trial. The flood of
 * queries runs beside the rest, on a server of its own.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { trials } from '../helpers/layers.js';
import { FIXTURES } from '../helpers/paths.js';
import { cpuTicks, linuxOnly } from '../helpers/processes.js';
import { type Harness, startServer } from '../helpers/server.js';
import { screenText } from '../helpers/tool-calls.js';
import { sleep } from '../helpers/wait.js';

const SH = { shell: '/bin/sh', login: false };
/** Reads nothing; prints R once its terminal is raw (before that, the kernel takes and drops input). */
const NON_READER = 'stty raw -echo; printf R; exec sleep 1000';
const ECHOER = 'stty raw -echo; exec cat';
const MIB = 1024 * 1024;

function assertNoWriteErrors(h: Harness): void {
  assert.doesNotMatch(h.stderr(), /EBADF|pty write error/i);
}

// Side by side: the flood of queries has a server of its own, so that it neither slows the
// others' sessions nor counts in the CPU the backlog test measures.
describe('input reaches only its own program', { concurrency: true }, () => {
  describe('between sessions', { concurrency: 1 }, () => {
    let h: Harness;
    before(async () => {
      h = await startServer();
    });
    after(async () => {
      await h.close();
    });

    it('discards input queued for a closed session instead of typing it into the next one', async () => {
      const leaked: string[] = [];
      for (let trial = 0; trial < trials(12); trial++) {
        const { id: first } = await h.start({ command: NON_READER, ...SH, settleMs: 50 });
        const sent = await h.input(first, [{ type: 'text', text: 'Q'.repeat(MIB - 16) }], {
          settleMs: 0,
        });
        assert.equal(sent.isError, false, sent.text);
        await sleep(trial % 3);
        // Close and start at once: the new terminal may get the same descriptor number.
        const closing = h.call('terminal_close', { sessionId: first });
        const { id: second } = await h.start({ command: ECHOER, ...SH, settleMs: 300 });
        await closing;
        const text = screenText(await h.snapshot(second, { settleMs: 100 }));
        if (text.includes('Q')) leaked.push(`trial ${trial}: ${text.slice(0, 60)}`);
        await h.call('terminal_close', { sessionId: second });
      }
      assert.deepEqual(leaked, []);
      assertNoWriteErrors(h);
    });

    it('never shows one session’s text on another’s screen, whatever the interleaving', async () => {
      type Op =
        | { kind: 'start'; reader: boolean }
        | { kind: 'input'; n: number; big: boolean }
        | { kind: 'close'; n: number; await: boolean }
        | { kind: 'exit'; n: number }
        | { kind: 'resize'; n: number; cols: number };
      const op: fc.Arbitrary<Op> = fc.oneof(
        fc.record({ kind: fc.constant('start' as const), reader: fc.boolean() }),
        fc.record({ kind: fc.constant('input' as const), n: fc.nat(), big: fc.boolean() }),
        fc.record({ kind: fc.constant('close' as const), n: fc.nat(), await: fc.boolean() }),
        fc.record({ kind: fc.constant('exit' as const), n: fc.nat() }),
        fc.record({
          kind: fc.constant('resize' as const),
          n: fc.nat(),
          cols: fc.integer({ min: 20, max: 120 }),
        }),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 3, maxLength: 9 }), async (ops) => {
          const live: { id: string; pid: number }[] = [];
          const all: string[] = [];
          const pending: Promise<unknown>[] = [];
          const at = (n: number) => (live.length ? live[n % live.length] : undefined);
          for (const o of ops) {
            if (o.kind === 'start' && live.length < 4) {
              const reply = await h.call('terminal_start', {
                command: o.reader ? ECHOER : NON_READER,
                ...SH,
                settleMs: 30,
              });
              const id = reply.data.sessionId as string;
              const list = await h.call('terminal_list');
              const pid = list.data.sessions?.find((s) => s.sessionId === id)?.pid as number;
              live.push({ id, pid });
              all.push(id);
            } else if (o.kind === 'input' && at(o.n)) {
              const s = at(o.n) as { id: string };
              const mark = `<${s.id}>`;
              const text = o.big ? mark.repeat(Math.floor(200_000 / mark.length)) : mark;
              pending.push(h.input(s.id, [{ type: 'text', text }], { settleMs: 0 }));
            } else if (o.kind === 'close' && at(o.n)) {
              const s = at(o.n) as { id: string; pid: number };
              live.splice(live.indexOf(s), 1);
              const closing = h.call('terminal_close', { sessionId: s.id });
              if (o.await) await closing;
              else pending.push(closing);
            } else if (o.kind === 'exit' && at(o.n)) {
              try {
                process.kill(at(o.n)?.pid as number, 'SIGKILL');
              } catch {
                // Already gone.
              }
            } else if (o.kind === 'resize' && at(o.n)) {
              const s = at(o.n) as { id: string };
              pending.push(h.call('terminal_resize', { sessionId: s.id, cols: o.cols, rows: 20 }));
            }
          }
          try {
            await Promise.all(pending);
            await sleep(80);
            for (const s of live) {
              const snap = await h.snapshot(s.id, { settleMs: 30, scrollbackLines: 2000 });
              const text = [...(snap.scrollback?.lines ?? []), ...snap.screen].join('');
              for (const other of all) {
                if (other !== s.id)
                  assert.ok(!text.includes(`<${other}>`), `${other}'s text on ${s.id}`);
              }
            }
          } finally {
            await Promise.all(live.map((s) => h.call('terminal_close', { sessionId: s.id })));
          }
        }),
        { numRuns: Number(process.env.AGENT_TTY_E2E_RUNS ?? trials(12, 3)) },
      );
      assertNoWriteErrors(h);
    });

    it('refuses input beyond the backlog with INPUT_BACKLOG, sending nothing, and idles meanwhile', {
      skip: linuxOnly,
    }, async () => {
      const { id } = await h.start({ command: NON_READER, ...SH, settleMs: 50 });
      await h.waitFor(id, (s) => screenText(s).includes('R'));
      const first = await h.input(id, [{ type: 'text', text: 'x'.repeat(MIB - 16) }], {
        settleMs: 0,
      });
      assert.equal(first.isError, false, first.text);
      const refused = await h.input(id, [{ type: 'text', text: 'y'.repeat(64 * 1024) }]);
      assert.equal(refused.isError, true);
      assert.equal(refused.data.error?.code, 'INPUT_BACKLOG');
      assert.equal(refused.data.inputSent, false);
      assert.equal(refused.data.actionsCompleted, 0);
      const details = refused.data.error?.details ?? {};
      assert.equal(details.limitBytes, MIB);
      assert.ok((details.pendingBytes as number) > MIB / 2, JSON.stringify(details));
      const cpuBefore = cpuTicks(h.pid) / 100;
      const started = performance.now();
      await sleep(1000);
      const share = (cpuTicks(h.pid) / 100 - cpuBefore) / ((performance.now() - started) / 1000);
      assert.ok(
        share < 0.2,
        `server CPU while the program does not read: ${Math.round(share * 100)}%`,
      );
      await h.call('terminal_close', { sessionId: id });
    });
  });

  describe('replies to queries', () => {
    let h: Harness;
    before(async () => {
      h = await startServer();
    });
    after(async () => {
      await h.close();
    });

    it('answers a flood of cursor queries with a bounded number of replies', async () => {
      const queries = 100_000;
      const { id } = await h.start({
        command: `python3 ${join(FIXTURES, 'query-flood.py')} ${queries}`,
        ...SH,
        settleMs: 50,
      });
      const snap = await h.waitFor(id, (s) => /replied \d+ bytes/.test(screenText(s)), 20_000);
      const replied = Number(/replied (\d+) bytes/.exec(screenText(snap))?.[1]);
      // Each reply is 6 bytes: all of them would be 600 000.
      assert.ok(replied > 0, 'some queries are answered');
      assert.ok(replied < 200_000, `the program received ${replied} bytes of replies`);
      await h.call('terminal_close', { sessionId: id });
    });
  });
});
