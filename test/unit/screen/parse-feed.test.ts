/**
 * ParseFeed against a real emulator: what it counts, which waits end when, the pause past the
 * high-water mark (4 MiB unparsed, module-private: reached with a 5 MiB write) and its end.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ParseFeed } from '../../../src/screen/parse-feed.js';
import { createTerminal, type Terminal } from '../../../src/screen/xterm.js';

const MiB = 1024 * 1024;

interface Fed {
  feed: ParseFeed;
  term: Terminal;
  pressure: boolean[];
  parsedEvents: () => number;
  pieces: () => number;
  clock: { now: number };
}

function feedOf(cols = 40, rows = 5): Fed {
  const term = createTerminal({ cols, rows, scrollback: 0 });
  const pressure: boolean[] = [];
  const clock = { now: 1000 };
  let parsed = 0;
  let pieces = 0;
  const feed = new ParseFeed(term, {
    pieceParsed: () => pieces++,
    parsed: () => parsed++,
    onPressure: (high) => pressure.push(high),
    now: () => clock.now,
  });
  return { feed, term, pressure, parsedEvents: () => parsed, pieces: () => pieces, clock };
}

const rowText = (term: Terminal, y: number) =>
  term.buffer.active.getLine(term.buffer.active.baseY + y)?.translateToString(true) ?? '';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('ParseFeed', () => {
  it('counts bytes pending until parsed, then the batch and when it ended', async () => {
    const { feed, term, parsedEvents, pieces, clock } = feedOf();
    assert.equal(feed.pendingBytes, 0);
    assert.equal(feed.parseCount, 0);
    assert.equal(feed.lastParsedAt, 1000, 'starts at its clock');
    feed.write(Buffer.from('hello'));
    feed.write(Buffer.from(' world'));
    assert.equal(feed.pendingBytes, 11);
    clock.now = 2500;
    await feed.whenParsed();
    assert.equal(feed.pendingBytes, 0);
    assert.equal(feed.parseCount, 1, 'two chunks before a turn are one batch');
    assert.equal(parsedEvents(), 1);
    assert.ok(pieces() >= 1);
    assert.equal(feed.lastParsedAt, 2500);
    assert.equal(rowText(term, 0), 'hello world');
    feed.write(Buffer.from('!'));
    await feed.whenParsed();
    assert.equal(feed.parseCount, 2);
    assert.equal(rowText(term, 0), 'hello world!');
    feed.dispose();
    term.dispose();
  });

  it('ignores an empty write and resolves a wait at once when nothing is pending', async () => {
    const { feed, term } = feedOf();
    feed.write(new Uint8Array(0));
    assert.equal(feed.pendingBytes, 0);
    await feed.whenParsed();
    assert.equal(feed.parseCount, 0, 'nothing was parsed');
    feed.dispose();
    term.dispose();
  });

  it('parses output in the order written, across many batches', async () => {
    const { feed, term } = feedOf(20, 3);
    for (let i = 1; i <= 50; i++) {
      feed.write(Buffer.from(`\r\nline ${i}`));
      if (i % 7 === 0) await turn();
    }
    await feed.whenParsed();
    assert.deepEqual(
      [0, 1, 2].map((y) => rowText(term, y)),
      ['line 48', 'line 49', 'line 50'],
    );
    feed.dispose();
    term.dispose();
  });

  it('ends a wait once what was written before it is parsed, not what came after', async () => {
    const { feed, term } = feedOf();
    const lines = Buffer.from('12345\r\n'.repeat(100_000));
    feed.write(lines);
    feed.write(Buffer.from('\x1b]0;before\x07'));
    let title = '';
    term.onTitleChange((t) => (title = t));
    const first = feed.whenParsed().then(() => ({ title, pending: feed.pendingBytes }));
    await turn();
    feed.write(lines);
    feed.write(Buffer.from('\x1b]0;after\x07'));
    const second = feed.whenParsed().then(() => title);
    const atFirst = await first;
    assert.equal(atFirst.title, 'before');
    assert.ok(atFirst.pending > 0, 'the first wait did not wait for the later output');
    assert.equal(await second, 'after');
    assert.equal(feed.pendingBytes, 0);
    feed.dispose();
    term.dispose();
  });

  it('reports pressure past the high-water mark once, and its end once drained', async () => {
    const { feed, term, pressure } = feedOf();
    const chunk = Buffer.alloc(MiB, 'x');
    for (let i = 0; i < 4; i++) feed.write(chunk);
    assert.deepEqual(pressure, [], '4 MiB pending is not past the mark');
    feed.write(chunk);
    assert.deepEqual(pressure, [true], '5 MiB is');
    feed.write(chunk);
    assert.deepEqual(pressure, [true], 'reported once');
    await feed.whenParsed();
    assert.deepEqual(pressure, [true, false]);
    assert.equal(feed.pendingBytes, 0);
    feed.dispose();
    term.dispose();
  });

  it('does not report pressure under the mark, however much is written in all', async () => {
    const { feed, term, pressure } = feedOf();
    const chunk = Buffer.alloc(2 * MiB, 'y');
    for (let i = 0; i < 4; i++) {
      feed.write(chunk);
      await feed.whenParsed();
    }
    assert.deepEqual(pressure, []);
    feed.dispose();
    term.dispose();
  });

  it('ends every wait on dispose, drops what is pending and takes nothing more', async () => {
    const { feed, term, parsedEvents, pressure } = feedOf();
    feed.write(Buffer.alloc(5 * MiB, 'z'));
    const waits = [feed.whenParsed(), feed.whenParsed()];
    feed.dispose();
    await Promise.all(waits);
    assert.equal(feed.pendingBytes, 0);
    feed.write(Buffer.from('more'));
    assert.equal(feed.pendingBytes, 0, 'a write after dispose is dropped');
    await feed.whenParsed();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(parsedEvents(), 0, 'no batch finished after dispose');
    assert.equal(feed.parseCount, 0);
    assert.deepEqual(pressure, [true]);
    feed.dispose();
    term.dispose();
  });
  it('brackets every piece: pieceStarting before it is parsed, pieceParsed after, one at a time', async () => {
    const term = createTerminal({ cols: 40, rows: 5, scrollback: 0 });
    const events: string[] = [];
    let repliesInPiece = 0;
    let open = false;
    term.onData(() => {
      assert.ok(open, 'a reply comes while its piece is being parsed');
      repliesInPiece++;
    });
    const feed = new ParseFeed(term, {
      pieceStarting: () => {
        assert.equal(open, false, 'no piece starts before the previous one is parsed');
        open = true;
        events.push('start');
      },
      pieceParsed: () => {
        open = false;
        events.push(`parsed ${repliesInPiece}`);
        repliesInPiece = 0;
      },
      parsed: () => undefined,
      now: () => 0,
    });
    // 96 KiB of cursor-position queries: three 32 KiB pieces of 8 192 queries each.
    feed.write(Buffer.from('\x1b[6n'.repeat(3 * 8192)));
    await feed.whenParsed();
    // Pieces end on a sequence boundary: at most 8 192 queries each, 4 pieces at most.
    assert.ok(events.length <= 8, events.join(', '));
    let answered = 0;
    for (const [i, event] of events.entries()) {
      if (i % 2 === 0) {
        assert.equal(event, 'start');
        continue;
      }
      const replies = Number(/^parsed (\d+)$/.exec(event)?.[1]);
      assert.ok(replies <= 8192, event);
      answered += replies;
    }
    assert.equal(answered, 3 * 8192);
    feed.dispose();
    term.dispose();
  });
});
