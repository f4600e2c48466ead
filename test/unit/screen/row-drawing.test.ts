import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractScreen } from '../../../src/screen/grid.js';
import { extractRowText } from '../../../src/screen/lines.js';
import { drawCells, safeCellText, sgrSequence } from '../../../src/screen/row-drawing.js';
import { createTerminal, type Terminal } from '../../../src/screen/xterm.js';

function write(term: Terminal, data: string): Promise<void> {
  return new Promise((resolve) => term.write(data, resolve));
}

/** Every row of the active screen drawn, styled, as frames draw it. */
function drawRows(term: Terminal): string[] {
  const buffer = term.buffer.active;
  return Array.from({ length: term.rows }, (_, y) => {
    const line = buffer.getLine(buffer.baseY + y);
    return line ? drawCells(line, 0, term.cols, true) : '';
  });
}

/**
 * A screen after `output`, and a second emulator (a watcher's terminal) after its rows are drawn
 * as frames draw them: each from its first column on a cleared row.
 */
async function watched(output: string, cols = 30, rows = 3) {
  const source = createTerminal({ cols, rows, scrollback: 0 });
  await write(source, output);
  const drawn = drawRows(source);
  const watcher = createTerminal({ cols, rows, scrollback: 0 });
  await write(
    watcher,
    drawn.map((row, y) => `\x1b[${y + 1};1H\x1b[0m\x1b[2K${row}\x1b[0m`).join(''),
  );
  const result = {
    drawn,
    agent: extractScreen(source),
    person: extractScreen(watcher),
    agentRow: (y: number) => extractRowText(source, y),
    personRow: (y: number) => extractRowText(watcher, y),
    plain: (y: number, start = 0, end = cols) => {
      const line = source.buffer.active.getLine(y);
      return line ? drawCells(line, start, end, false) : '';
    },
  };
  source.dispose();
  watcher.dispose();
  return result;
}

/** The 1-based cell column of the first `text` in a row read with its columns. */
function columnOf(row: { text: string; columns: readonly number[] }, text: string): number {
  const at = row.text.indexOf(text);
  assert.ok(at >= 0, `${JSON.stringify(text)} in ${JSON.stringify(row.text)}`);
  return row.columns[at] as number;
}

const HIDDEN =
  /[\u0080-\u009f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|[\u{e0000}-\u{e007f}]/u;

describe('drawCells', () => {
  it('leaves out a bidirectional control joined to a character, keeping every column', async () => {
    const w = await watched('pay 10\u202E0001\u202C to bob\r\n');
    assert.equal(w.agent.screen[0], 'pay 10\uFFFD0001\uFFFD to bob');
    assert.equal(w.person.screen[0], 'pay 100001 to bob');
    assert.doesNotMatch(w.drawn[0] ?? '', HIDDEN);
    assert.equal(columnOf(w.personRow(0), 'bob'), columnOf(w.agentRow(0), 'bob'));
    assert.equal(w.plain(0), 'pay 100001 to bob');
  });

  it('shows the stand-in in the cell a hidden character took of its own', async () => {
    // At a row's start, or after an escape sequence, the emulator gives it a cell.
    const w = await watched('\u202Eabc\r\nab\x1b[31m\u2066cd\x1b[0m\r\n\u2028x');
    assert.deepEqual(w.person.screen, w.agent.screen);
    assert.deepEqual(w.person.screen, ['\uFFFDabc', 'ab\uFFFDcd', '\uFFFDx']);
    assert.deepEqual(w.person.spans, w.agent.spans);
    assert.equal(columnOf(w.personRow(1), 'c'), columnOf(w.agentRow(1), 'c'));
  });

  it('keeps wide characters, joined combining marks and colours as they are', async () => {
    const w = await watched(
      'a\u65e5\u{1F600}e\u0301 \x1b[1;3;4;5;7;9;53;2m*\x1b[0m\x1b[38;5;200;48;2;1;2;3mX\x1b[0m\x1b[92;104mY\x1b[0m',
    );
    assert.deepEqual(w.person.screen, w.agent.screen);
    assert.deepEqual(w.person.styles, w.agent.styles);
    assert.deepEqual(w.person.spans, w.agent.spans);
    assert.equal(w.person.screen[0], 'a\u65e5\u{1F600}e\u0301 *XY');
  });

  it('keeps a combining mark the emulator gave a cell of its own in line with the agent', async () => {
    // grep --color on decomposed text: the mark follows an escape sequence.
    const w = await watched('cafe\x1b[1;31m\u0301\x1b[0m!');
    assert.equal(w.agent.screen[0], 'cafe\u0301!');
    assert.equal(columnOf(w.personRow(0), '!'), columnOf(w.agentRow(0), '!'));
    assert.equal(w.person.screen[0], 'cafe\u0301 !');
  });

  it('never joins a combining mark to a concealed cell, which would conceal it', async () => {
    const w = await watched('\x1b[8m \x1b[28m\u0300x');
    assert.equal(w.drawn[0], '\x1b[0;8m \x1b[0m \u0300x');
    assert.equal(columnOf(w.personRow(0), 'x'), columnOf(w.agentRow(0), 'x'));
  });

  it('draws concealed cells as blanks and a cut wide character as a blank', async () => {
    const w = await watched('ab\x1b[8msecret\x1b[0m!\u65e5x');
    assert.deepEqual(w.person.screen, w.agent.screen);
    assert.doesNotMatch(w.drawn[0] ?? '', /secret/);
    assert.equal(w.plain(0, 0, 10), 'ab      ! ');
    assert.equal(w.plain(0, 10, 12), ' x');
  });

  it('paints blank cells with a background, and nothing for blanks without one', async () => {
    const w = await watched('\x1b[41m  \x1b[0m x \x1b[44m\x1b[K');
    assert.deepEqual(w.person.screen, w.agent.screen);
    assert.deepEqual(w.person.spans, w.agent.spans);
    // Cells never written (a cursor move passed them) are passed over; written spaces are text.
    const moved = await watched('\x1b[3Ga\x1b[3Cb c  ');
    assert.equal(moved.drawn[0], '\x1b[2Ca\x1b[3Cb c  ');
  });

  it('draws the alternate screen', async () => {
    const w = await watched('\x1b[?1049h\x1b[H\x1b[1;32mgreen\x1b[0m\r\n\u5bbd wide');
    assert.equal(w.agent.buffer, 'alternate');
    assert.deepEqual(w.person.screen, w.agent.screen);
    assert.deepEqual(w.person.spans, w.agent.spans);
    assert.deepEqual(w.person.styles, w.agent.styles);
  });
});

describe('safeCellText', () => {
  it('replaces a hidden first character by its stand-in and drops hidden joined ones', () => {
    assert.equal(safeCellText('a', 1), 'a');
    assert.equal(safeCellText('0\u202E', 1), '0');
    assert.equal(safeCellText('e\u0301\u200B', 1), 'e\u0301');
    assert.equal(safeCellText('\u2028', 1), '\uFFFD');
    assert.equal(safeCellText('\u{E0000}\u{E0041}', 1), '\uFFFD');
  });
});

describe('sgrSequence', () => {
  it('sets exactly the style, from the default', () => {
    assert.equal(sgrSequence(0, 0, 0), '\x1b[0m');
    assert.equal(sgrSequence(0x1000001, 0x1000009, 1 | 64), '\x1b[0;1;8;31;101m');
    assert.equal(sgrSequence(0x20000c8, 0x3010203, 256), '\x1b[0;53;38;5;200;48;2;1;2;3m');
  });
});
