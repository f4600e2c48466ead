/**
 * ParseYield: a piece whose parse runs past its slice pauses before its next screen-sized sequence
 * and resumes after the event loop's I/O (issue 35, S10: 32 KiB of `CSI 999 L` at 500x200 held
 * the server's thread 18 s). Fake clock, counted pauses: no wall-clock bound.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ParseFeed } from '../../../src/screen/parse-feed.js';
import { ParseYield, SLICE_BUDGET_MS } from '../../../src/screen/parse-yield.js';
import { createTerminal, type Terminal } from '../../../src/screen/xterm.js';
import { parseNextWriteNow } from '../../../src/screen/xterm-terminal.js';

const flush = () => new Promise((resolve) => setImmediate(resolve));

/** Writes as parse-feed.ts does: parsed in the write call, not on xterm's timer. */
function writeNow(term: Terminal, data: string, done: () => void): void {
  parseNextWriteNow(term);
  term.write(data, done);
}

describe('ParseYield', () => {
  it('lets a piece within its slice parse at once', async () => {
    const term = createTerminal({ cols: 20, rows: 4, scrollback: 0 });
    const clock = { now: 0 };
    const resumes: (() => void)[] = [];
    const y = new ParseYield(
      term,
      () => clock.now,
      SLICE_BUDGET_MS,
      (r) => resumes.push(r),
    );
    y.startSlice();
    let parsed = false;
    writeNow(term, '\x1b[2J\x1b[5L\x1bc', () => {
      parsed = true;
    });
    assert.equal(parsed, true, 'parsed in the write call');
    assert.equal(resumes.length, 0);
    y.dispose();
    term.dispose();
  });

  it('pauses before a screen-sized sequence once the slice is spent, and resumes in order', async () => {
    const term = createTerminal({ cols: 20, rows: 4, scrollback: 0 });
    const clock = { now: 0 };
    const resumes: (() => void)[] = [];
    const y = new ParseYield(
      term,
      () => clock.now,
      SLICE_BUDGET_MS,
      (r) => resumes.push(r),
    );
    y.startSlice();
    clock.now = SLICE_BUDGET_MS; // spent
    let parsed = false;
    writeNow(term, 'ab\x1b[2Jcd\x1b[Kef', () => {
      parsed = true;
    });
    assert.equal(parsed, false, 'the piece is paused');
    assert.equal(resumes.length, 1, 'one pause, before the first sequence over the budget');
    const row = () => term.buffer.active.getLine(0)?.translateToString(true);
    assert.equal(row(), 'ab', 'parsed up to the sequence, not past it');
    resumes.shift()?.(); // a new slice starts at the resume: the rest fits in it
    await flush();
    assert.equal(parsed, true);
    assert.equal(resumes.length, 0);
    assert.equal(row(), '  cdef', 'ED and EL ran after the pause, as if never paused');
    y.dispose();
    term.dispose();
  });

  it('never resumes into a disposed terminal', async () => {
    const term = createTerminal({ cols: 20, rows: 4, scrollback: 0 });
    const clock = { now: 10 };
    const resumes: (() => void)[] = [];
    const y = new ParseYield(
      term,
      () => clock.now,
      SLICE_BUDGET_MS,
      (r) => resumes.push(r),
    );
    let parsed = false;
    writeNow(term, '\x1b[2Jx', () => {
      parsed = true;
    });
    await flush();
    y.dispose();
    term.dispose();
    resumes.shift()?.();
    await flush();
    assert.equal(parsed, false);
  });
});

describe('ParseFeed with a paused piece', () => {
  it('writes nothing more to the emulator until the paused piece is parsed, then goes on', async () => {
    const term = createTerminal({ cols: 20, rows: 4, scrollback: 0 });
    // Every sequence finds its slice spent: each pauses once, resumed by the real event loop.
    let t = 0;
    const y = new ParseYield(term, () => (t += SLICE_BUDGET_MS));
    const events: string[] = [];
    let open = false;
    let pauses = 0;
    const feed = new ParseFeed(term, {
      pieceStarting: () => {
        assert.equal(open, false, 'a piece starts only after the previous one is parsed');
        open = true;
        y.startSlice();
        events.push('start');
      },
      pieceParsed: () => {
        open = false;
        events.push('parsed');
      },
      parsed: () => undefined,
      now: () => 0,
    });
    // 96 KiB of EL: at least three pieces, each pausing before every sequence.
    feed.write(Buffer.from('\x1b[K'.repeat(32 * 1024)));
    const done = feed.whenParsed();
    const tick = setInterval(() => pauses++, 0);
    await done;
    clearInterval(tick);
    assert.ok(events.length >= 6 && events.length % 2 === 0, `${events.length} events`);
    for (const [i, event] of events.entries()) assert.equal(event, i % 2 ? 'parsed' : 'start');
    assert.equal(feed.pendingBytes, 0);
    assert.ok(pauses > 0, 'the event loop ran timers while the pieces were paused');
    feed.dispose();
    y.dispose();
    term.dispose();
  });
});
