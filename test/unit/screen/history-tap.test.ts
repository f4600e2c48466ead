/**
 * The transcript behind history, through Screen: every row that scrolls off the normal screen is
 * kept once, in order, whatever the emulator's own scrollback drops (a small scrollback, ED 3, a
 * reset, a resize, the alternate screen), and the numbering holds: screen row r is line
 * historyTotal + r.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Screen, type ScreenOptions } from '../../../src/screen/screen.js';
import { readAllHistory } from '../../helpers/history.js';

const ALL = Number.POSITIVE_INFINITY;

function screenOf(options: Partial<ScreenOptions> = {}): Screen {
  return new Screen({ cols: 20, rows: 5, scrollback: 10, onReply: () => undefined, ...options });
}

async function feed(screen: Screen, data: string): Promise<void> {
  screen.write(Buffer.from(data));
  await screen.whenParsed();
}

/** Lines `L<first>` … `L<last>`, each ending in CR LF. */
const numbered = (first: number, last: number) =>
  Array.from({ length: last - first + 1 }, (_, i) => `L${first + i}\r\n`).join('');
const names = (first: number, last: number) =>
  Array.from({ length: last - first + 1 }, (_, i) => `L${first + i}`);

/** Every history line, read with historySince in pages of 7. */
const readAll = (screen: Screen) => readAllHistory(screen, 7);

describe('history from the transcript', () => {
  it('keeps every line past a small scrollback, in pages, none missed', async () => {
    const screen = screenOf();
    await feed(screen, numbered(1, 5000));
    assert.equal(screen.historyTotal, 4996);
    assert.deepEqual(screen.grid().screen.slice(0, 4), names(4997, 5000));
    assert.deepEqual(readAll(screen), names(1, 4996));
    const page = screen.historySince(1233, 2, ALL);
    assert.deepEqual(page, { since: 1233, lines: ['L1234', 'L1235'], total: 4996, missedLines: 0 });
    assert.equal(screen.history(100).availableLines, 10, 'the scrollback keeps its size');
    assert.deepEqual(screen.history(3).lines, names(4994, 4996));
    screen.dispose();
  });

  it('keeps lines with --scrollback 0', async () => {
    const screen = screenOf({ scrollback: 0 });
    await feed(screen, numbered(1, 300));
    assert.deepEqual(readAll(screen), names(1, 296));
    assert.deepEqual(screen.history(10), { lines: [], availableLines: 0 });
    screen.dispose();
  });

  it('keeps the scrollback that ED 3 clears, and numbers on', async () => {
    const screen = screenOf();
    await feed(screen, `${numbered(1, 8)}\x1b[3J${numbered(9, 20)}`);
    assert.deepEqual(readAll(screen), names(1, 16));
    assert.equal(screen.historyTotal, 16);
    screen.dispose();
  });

  it('keeps what scrolled off before a reset (RIS), and numbers on after it', async () => {
    const screen = screenOf();
    await feed(screen, `${numbered(1, 12)}\x1bc${numbered(13, 30)}`);
    // L9-L12 were on the screen when it was reset: erased, they never scrolled off.
    assert.deepEqual(readAll(screen), [...names(1, 8), ...names(13, 26)]);
    assert.equal(screen.historyTotal, 22);
    assert.deepEqual(screen.grid().screen.slice(0, 4), names(27, 30));
    screen.dispose();
  });

  it('keeps history written while the alternate screen shows, and not the alternate screen', async () => {
    const screen = screenOf();
    await feed(screen, `${numbered(1, 10)}\x1b[?1049h${numbered(11, 40)}`);
    assert.equal(screen.historyTotal, 6);
    await feed(screen, `\x1b[?1049l${numbered(41, 45)}`);
    assert.deepEqual(readAll(screen), [...names(1, 10), 'L41']);
    screen.dispose();
  });

  it('adds the rows a shorter screen pushes off, and does not repeat rows a taller one shows again', async () => {
    const screen = screenOf();
    await feed(screen, `${numbered(1, 12)}prompt`);
    assert.equal(screen.historyTotal, 8);
    screen.resize(20, 3);
    assert.equal(screen.historyTotal, 10);
    assert.deepEqual(screen.grid().screen, ['L11', 'L12', 'prompt']);
    screen.resize(20, 6);
    // L8-L10 come back onto the screen: row 1 is line historyTotal + 1 = 8.
    assert.equal(screen.historyTotal, 7);
    assert.deepEqual(screen.grid().screen.slice(0, 3), ['L8', 'L9', 'L10']);
    assert.deepEqual(readAll(screen), names(1, 7));
    await feed(screen, `\r\n${numbered(13, 20)}`);
    assert.deepEqual(readAll(screen), [...names(1, 12), 'prompt', 'L13', 'L14', 'L15']);
    assert.equal(screen.historyTotal, 16);
    assert.deepEqual(screen.grid().screen.slice(0, 5), names(16, 20));
    screen.dispose();
  });

  it('does not repeat rows a taller screen showed again when a shorter one pushes them off again', async () => {
    const screen = screenOf();
    await feed(screen, `${numbered(1, 12)}prompt`);
    assert.equal(screen.historyTotal, 8);
    for (let cycle = 0; cycle < 3; cycle++) {
      screen.resize(20, 8);
      assert.equal(screen.historyTotal, 5, `taller, cycle ${cycle}`);
      assert.deepEqual(screen.grid().screen.slice(0, 3), ['L6', 'L7', 'L8']);
      screen.resize(20, 5);
      assert.equal(screen.historyTotal, 8, `shorter again, cycle ${cycle}`);
      assert.deepEqual(screen.grid().screen.slice(0, 4), ['L9', 'L10', 'L11', 'L12']);
      assert.deepEqual(readAll(screen), names(1, 8));
    }
    // Shorter than at first: what it pushes off is new history, once.
    screen.resize(20, 8);
    screen.resize(20, 3);
    assert.equal(screen.historyTotal, 10);
    assert.deepEqual(readAll(screen), names(1, 10));
    // A width change while rows shown again are on the screen: still each row once.
    screen.resize(20, 8);
    screen.resize(30, 5);
    assert.deepEqual(readAll(screen), names(1, 8));
    await feed(screen, `\r\n${numbered(13, 20)}`);
    assert.deepEqual(readAll(screen), [...names(1, 12), 'prompt', ...names(13, 16)]);
    assert.deepEqual(screen.grid().screen.slice(0, 4), names(17, 20));
    screen.dispose();
  });

  it('keeps a combining mark in a cell of its own (after an escape sequence) in history too', async () => {
    const screen = screenOf();
    await feed(screen, `cafe\x1b[31m\u0301!\x1b[m\r\n${numbered(1, 6)}`);
    assert.deepEqual(readAll(screen).slice(0, 2), ['cafe\u0301!', 'L1']);
    screen.dispose();
  });

  it('keeps rows as they were when they scrolled off, whatever a later width re-wraps', async () => {
    const screen = screenOf();
    await feed(screen, `${numbered(1, 3)}${'x'.repeat(35)}\r\n${numbered(4, 8)}`);
    const before = readAll(screen);
    assert.deepEqual(before, [...names(1, 3), 'x'.repeat(20), 'x'.repeat(15), 'L4']);
    screen.resize(40, 5);
    assert.deepEqual(readAll(screen), before);
    screen.resize(10, 5);
    assert.deepEqual(readAll(screen).slice(0, 6), before);
    screen.dispose();
  });

  it('drops the oldest lines past --transcript-bytes and counts them as missed', async () => {
    // L10-L99 cost 3 bytes of text and 2 of index, L100 one more: 70 bytes hold L88-L100.
    const screen = screenOf({ transcriptBytes: 70 });
    await feed(screen, numbered(1, 104));
    assert.equal(screen.historyTotal, 100);
    const page = screen.historySince(0, ALL, ALL);
    assert.equal(page.missedLines, 87);
    assert.equal(page.since, 87);
    assert.deepEqual(page.lines, names(88, 100));
    assert.equal(screen.transcriptStats().dropped, 87);
    screen.dispose();
  });
});

describe('the scrollback view', () => {
  it('shows the last lines of history, oldest first, at most --scrollback of them', async () => {
    const screen = screenOf();
    await feed(screen, numbered(1, 8));
    assert.deepEqual(screen.history(10), { lines: names(1, 4), availableLines: 4 });
    assert.deepEqual(screen.history(1), { lines: ['L4'], availableLines: 4 });
    assert.deepEqual(screen.history(0), { lines: [], availableLines: 4 });
    // More than the emulator's own scrollback (EMULATOR_SCROLLBACK) and than --scrollback.
    await feed(screen, numbered(9, 500));
    assert.deepEqual(screen.history(500), { lines: names(487, 496), availableLines: 10 });
    screen.dispose();
  });

  it('is empty before anything scrolled, and reads history while the alternate screen shows', async () => {
    const screen = screenOf();
    await feed(screen, 'x');
    assert.deepEqual(screen.history(5), { lines: [], availableLines: 0 });
    await feed(screen, `\r\n${numbered(1, 6)}\x1b[?1049h\x1b[Hfull\r\nscreen${numbered(1, 9)}`);
    assert.deepEqual(screen.history(5), { lines: ['x', 'L1', 'L2'], availableLines: 3 });
    screen.dispose();
  });

  it('starts over after ED 3 (clear) and after a reset, while history keeps every line', async () => {
    const screen = screenOf();
    await feed(screen, `${numbered(1, 8)}\x1b[H\x1b[2J\x1b[3J`);
    assert.deepEqual(screen.history(10), { lines: [], availableLines: 0 });
    await feed(screen, numbered(9, 14));
    assert.deepEqual(screen.history(10), { lines: ['L9', 'L10'], availableLines: 2 });
    await feed(screen, `\x1bc${numbered(15, 20)}`);
    assert.deepEqual(screen.history(10), { lines: ['L15', 'L16'], availableLines: 2 });
    assert.deepEqual(readAll(screen).slice(0, 4), names(1, 4));
    screen.dispose();
  });

  it('keeps no line the transcript dropped for its bound', async () => {
    // As above: 70 bytes hold L88-L100.
    const screen = screenOf({ transcriptBytes: 70 });
    await feed(screen, numbered(1, 104));
    assert.deepEqual(screen.history(10).availableLines, 10);
    const small = screenOf({ transcriptBytes: 70, scrollback: 50 });
    await feed(small, numbered(1, 104));
    assert.deepEqual(small.history(50), { lines: names(88, 100), availableLines: 13 });
    screen.dispose();
    small.dispose();
  });

  it('shows rows as they scrolled off, whatever a later width re-wraps', async () => {
    const screen = screenOf();
    await feed(screen, `${'x'.repeat(35)}\r\n${numbered(1, 5)}`);
    screen.resize(40, 5);
    assert.deepEqual(screen.history(3).lines, ['x'.repeat(20), 'x'.repeat(15), 'L1']);
    screen.dispose();
  });
});

describe('a narrowing resize', () => {
  /** A screen of `rows` rows of `cols` cells each (`R<n>` then x), then the cursor's empty row. */
  async function fullScreen(cols: number, rows: number, lines: number): Promise<Screen> {
    const screen = new Screen({ cols, rows, scrollback: 2000, onReply: () => undefined });
    let text = '';
    for (let n = 1; n <= lines; n++) text += `${`R${n}:`.padEnd(cols, 'x')}\r\n`;
    await feed(screen, text);
    return screen;
  }

  it('rewraps the rows that fit, keeps every row in history, and ends on the cursor row', async () => {
    const screen = await fullScreen(500, 200, 1200);
    screen.resize(2, 200);
    const rows = screen.grid().screen;
    assert.equal(rows.length, 200);
    assert.equal(rows[199], '', 'the cursor row is last');
    assert.deepEqual(rows.slice(196, 199), ['xx', 'xx', 'xx'], 'the end of R1200 rewrapped');
    await feed(screen, '\r\n'.repeat(201));
    // Every row that was printed is in history, in order (rows pushed off are 2 columns wide).
    const text = readAll(screen).join('');
    let from = 0;
    for (let n = 1; n <= 1200; n++) {
      const at = text.indexOf(`R${n}:`, from);
      assert.ok(at >= from, `R${n} is in history after R${n - 1}`);
      from = at;
    }
    assert.equal(
      text
        .slice(from)
        .replaceAll('x', '')
        .replace(/^R1200:/, ''),
      '',
    );
    screen.dispose();
  });
});
