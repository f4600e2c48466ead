import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractCells, extractRowText } from '../../../src/screen/lines.js';
import { createTerminal, type Terminal } from '../../../src/screen/xterm.js';

function terminal(cols = 20, rows = 4, scrollback = 100): Terminal {
  return createTerminal({ cols, rows, scrollback });
}

function write(term: Terminal, data: string): Promise<void> {
  return new Promise((resolve) => term.write(data, resolve));
}

async function withScreen<T>(data: string, read: (term: Terminal) => T, cols = 20, rows = 4) {
  const term = terminal(cols, rows);
  await write(term, data);
  const result = read(term);
  term.dispose();
  return result;
}

describe('extractRowText', () => {
  it('gives each UTF-16 unit its cell column; wide characters take two', async () => {
    const row = await withScreen('a日🙂b\r\n', (t) => extractRowText(t, 0));
    assert.deepEqual(row, { text: 'a日🙂b', columns: [1, 2, 4, 4, 6] });
  });

  it('drops trailing blanks, but on the cursor row keeps them up to the cursor', async () => {
    const rows = await withScreen('done   \r\nName? ', (t) =>
      [0, 1].map((y) => extractRowText(t, y)),
    );
    assert.equal(rows[0]?.text, 'done');
    assert.equal(rows[1]?.text, 'Name? ');
    assert.deepEqual(rows[1]?.columns, [1, 2, 3, 4, 5, 6]);
  });

  it('reads concealed cells as blanks and makes unsafe characters visible', async () => {
    const row = await withScreen('a\x1b[8mxy\x1b[0mb\u202Ec\r\n', (t) => extractRowText(t, 0));
    assert.equal(row.text, 'a  b\uFFFDc');
  });

  it('is empty past the last row', async () => {
    assert.deepEqual(await withScreen('x', (t) => extractRowText(t, 9)), { text: '', columns: [] });
  });
});

describe('extractCells', () => {
  it('reads the cells of a column range, trailing blanks trimmed', async () => {
    const cells = await withScreen('hello world', (t) => extractCells(t, 0, 3, 8));
    assert.equal(cells, 'llo wo');
  });

  it('reads a wide character cut by either edge of the range as a blank', async () => {
    const parts = await withScreen('a日b', (t) => [
      extractCells(t, 0, 1, 2),
      extractCells(t, 0, 3, 4),
      extractCells(t, 0, 1, 3),
    ]);
    assert.deepEqual(parts, ['a', ' b', 'a日']);
  });
});
