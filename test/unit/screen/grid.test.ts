import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { extractScreen } from '../../../src/screen/grid.js';
import type { Style } from '../../../src/screen/style.js';
import { createTerminal, type Terminal } from '../../../src/screen/xterm.js';

function terminal(cols = 20, rows = 4, scrollback = 100): Terminal {
  return createTerminal({ cols, rows, scrollback });
}

function write(term: Terminal, data: string): Promise<void> {
  return new Promise((resolve) => term.write(data, resolve));
}

async function screenOf(data: string, cols = 20, rows = 4) {
  const term = terminal(cols, rows);
  await write(term, data);
  const grid = extractScreen(term);
  term.dispose();
  return grid;
}

/** The style of the single span on row 1, or undefined when the row has none. */
async function styleOf(sgr: string): Promise<Style | undefined> {
  const grid = await screenOf(`\x1b[${sgr}mX\x1b[0m`);
  assert.ok(grid.spans.length <= 1, JSON.stringify(grid.spans));
  const span = grid.spans[0];
  return span ? grid.styles[span[3]] : undefined;
}

describe('extractScreen text', () => {
  it('returns exactly `rows` strings, blank rows empty', async () => {
    const grid = await screenOf('hello', 20, 4);
    assert.deepEqual(grid.screen, ['hello', '', '', '']);
    assert.equal(grid.cols, 20);
    assert.equal(grid.rows, 4);
    assert.equal(grid.buffer, 'normal');
  });

  it('trims trailing unstyled spaces but keeps inner spaces', async () => {
    const grid = await screenOf('a  b    \r\n   ');
    assert.deepEqual(grid.screen.slice(0, 2), ['a  b', '']);
  });

  it('keeps trailing blanks that carry a style, and unstyled blanks before them', async () => {
    const grid = await screenOf('ab  \x1b[44m  \x1b[0m   ');
    assert.equal(grid.screen[0], 'ab    ');
    assert.deepEqual(grid.spans, [[1, 5, 6, 0]]);
    assert.deepEqual(grid.styles, [{ bg: 4 }]);
  });

  it('gives wide characters two columns and spans cover both', async () => {
    const grid = await screenOf('\x1b[31m日本\x1b[0m🙂x');
    assert.equal(grid.screen[0], '日本🙂x');
    assert.deepEqual(grid.spans, [[1, 1, 4, 0]]);
    assert.deepEqual(grid.cursor, { row: 1, column: 8, visible: true });
  });

  it('styles the emoji as one two-column run (Unicode 11 widths)', async () => {
    const grid = await screenOf('a\x1b[1m🙂\x1b[0mb');
    assert.equal(grid.screen[0], 'a🙂b');
    assert.deepEqual(grid.spans, [[1, 2, 3, 0]]);
  });

  it('keeps combining characters with their base character in one column', async () => {
    const grid = await screenOf('e\u0301x');
    assert.equal(grid.screen[0], 'e\u0301x');
    assert.equal(grid.cursor.column, 3);
  });

  it('keeps a combining mark that follows an escape sequence, which the emulator puts in a cell of its own', async () => {
    // grep --color on decomposed text: the colour ends between the letter and its accent.
    const grid = await screenOf('cafe\x1b[m\x1b[K\u0301 ok\r\ne\x1b[1m\u0301X\x1b[m');
    assert.deepEqual(grid.screen.slice(0, 2), ['caf\u0065\u0301 ok', 'e\u0301X']);
  });

  it('shows concealed text as spaces, keeping its style', async () => {
    const grid = await screenOf('a\x1b[8msecret\x1b[0m');
    assert.equal(grid.screen[0], 'a      ');
    assert.deepEqual(grid.spans, [[1, 2, 7, 0]]);
    assert.deepEqual(grid.styles[0], { invisible: true });
  });

  it('replaces control characters that reach the buffer through the text-safety map', async () => {
    const grid = await screenOf('a\u202Eb');
    assert.equal(grid.screen[0], 'a\uFFFDb');
  });
});

describe('extractScreen styles', () => {
  const cases: [string, Style | undefined][] = [
    ['0', undefined],
    ['31', { fg: 1 }],
    ['91', { fg: 9 }],
    ['42', { bg: 2 }],
    ['38;5;200', { fg: 200 }],
    ['48;5;17', { bg: 17 }],
    ['38;2;255;0;128', { fg: '#ff0080' }],
    ['48;2;1;2;3', { bg: '#010203' }],
    ['1', { bold: true }],
    ['2', { dim: true }],
    ['3', { italic: true }],
    ['4', { underline: true }],
    ['5', { blink: true }],
    ['7', { inverse: true }],
    ['8', { invisible: true }],
    ['9', { strikethrough: true }],
    ['53', { overline: true }],
    ['1;3;31;44', { fg: 1, bg: 4, bold: true, italic: true }],
  ];
  for (const [sgr, style] of cases) {
    it(`SGR ${sgr} -> ${JSON.stringify(style)}`, async () => {
      assert.deepEqual(await styleOf(sgr), style);
    });
  }

  it('makes one span per run of equal style and reuses style ids', async () => {
    const grid = await screenOf('\x1b[31mab\x1b[32mc\x1b[0md\x1b[31me\r\n\x1b[32mf');
    assert.deepEqual(grid.spans, [
      [1, 1, 2, 0],
      [1, 3, 3, 1],
      [1, 5, 5, 0],
      [2, 1, 1, 1],
    ]);
    assert.deepEqual(grid.styles, [{ fg: 1 }, { fg: 2 }]);
  });

  it('runs a background fill to the end of the row', async () => {
    const grid = await screenOf('\x1b[41m\x1b[K\x1b[0m', 8, 2);
    assert.deepEqual(grid.spans, [[1, 1, 8, 0]]);
    assert.equal(grid.screen[0], '        ');
  });
});

describe('extractScreen cursor and buffer', () => {
  it('reports the cursor 1-based', async () => {
    const grid = await screenOf('\x1b[3;7H');
    assert.deepEqual(grid.cursor, { row: 3, column: 7, visible: true });
  });

  it('reports a hidden cursor after CSI ?25l', async () => {
    const grid = await screenOf('\x1b[?25l');
    assert.equal(grid.cursor.visible, false);
  });

  it('clamps a pending wrap to the last column', async () => {
    const grid = await screenOf('abcde', 5, 2);
    assert.deepEqual(grid.cursor, { row: 1, column: 5, visible: true });
  });

  it('reports the alternate buffer and its own content', async () => {
    const grid = await screenOf('main\x1b[?1049h\x1b[Halt');
    assert.equal(grid.buffer, 'alternate');
    assert.deepEqual(grid.screen, ['alt', '', '', '']);
  });
});

describe('extractScreen properties', () => {
  it('has `rows` lines, spans inside the grid, for any printable input', async () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 60 });
    const sgr = fc.constantFrom('', '\x1b[31m', '\x1b[1;44m', '\x1b[0m', '\x1b[7m', '\r\n');
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(sgr, text), { maxLength: 6 }),
        fc.integer({ min: 2, max: 30 }),
        fc.integer({ min: 1, max: 6 }),
        async (parts, cols, rows) => {
          const grid = await screenOf(parts.map(([s, t]) => s + t).join(''), cols, rows);
          assert.equal(grid.screen.length, rows);
          for (const [row, start, end, id] of grid.spans) {
            assert.ok(row >= 1 && row <= rows && start >= 1 && start <= end && end <= cols);
            assert.ok(id >= 0 && id < grid.styles.length);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
