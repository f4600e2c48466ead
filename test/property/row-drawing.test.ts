import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { drawCells, safeCellText } from '../../src/screen/row-drawing.js';
import { cellFlags, INVISIBLE_FLAG } from '../../src/screen/style.js';
import { isSafeText } from '../../src/screen/text-safety.js';
import { createTerminal, type IBufferCell, type Terminal } from '../../src/screen/xterm.js';

/**
 * A watcher's terminal, fed the rows frames draw, shows each cell in the column it takes on
 * agent-tty's screen, in its style, with the character (or stand-in) results show for it, and
 * no character results replace: for any output, including bidirectional and invisible
 * characters joined to a cell or in a cell of their own, wide characters, combining marks,
 * concealed and coloured cells.
 */

const cp = fc.oneof(
  fc.integer({ min: 0x20, max: 0x7e }),
  fc.constantFrom(0x4e2d, 0x65e5, 0x1f600, 0x1f44d, 0xff21),
  fc.constantFrom(0x300, 0x301, 0x20dd, 0x200d, 0xfe0f, 0x1d167),
  fc.constantFrom(0x202e, 0x202c, 0x2066, 0x2069, 0x200b, 0x200e, 0x061c, 0xfeff, 0x2028),
  fc.constantFrom(0xe0001, 0xe0041, 0xe007f, 0xe0000, 0x85, 0x9b, 0x90, 0x9c),
  fc.integer({ min: 0xa1, max: 0x2fff }),
);
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.array(cp, { maxLength: 12 }).map((c) => String.fromCodePoint(...c)) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '\x1b[8m',
      '\x1b[28m',
      '\x1b[0m',
      '\x1b[41m',
      '\x1b[1;32m',
      '\x1b[3;4;7m',
      '\x1b[38;5;123m',
      '\x1b[48;2;9;8;7m',
      '\x1b[K',
      '\x1b[5G',
      '\x1b[2C',
      '\t',
      '\r\n',
    ),
  },
);

function write(term: Terminal, data: string): Promise<void> {
  return new Promise((resolve) => term.write(data, resolve));
}

function style(c: IBufferCell): string {
  return [
    c.getFgColorMode(),
    c.getFgColor(),
    c.getBgColorMode(),
    c.getBgColor(),
    cellFlags(c),
  ].join();
}

describe('drawCells (property)', () => {
  it('draws every cell in its column, in its style, with the text results show', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 30 }),
        fc.integer({ min: 2, max: 30 }),
        async (pieces, cols) => {
          const rows = 4;
          const source = createTerminal({ cols, rows, scrollback: 0 });
          const watcher = createTerminal({ cols, rows, scrollback: 0 });
          try {
            await write(source, pieces.join(''));
            const buffer = source.buffer.active;
            let frame = '';
            for (let y = 0; y < rows; y++) {
              const line = buffer.getLine(buffer.baseY + y);
              assert.ok(line);
              frame += `\x1b[${y + 1};1H\x1b[0m\x1b[2K${drawCells(line, 0, cols, true)}\x1b[0m`;
            }
            await write(watcher, frame);
            for (let y = 0; y < rows; y++) {
              const from = buffer.getLine(buffer.baseY + y);
              const to = watcher.buffer.active.getLine(y);
              assert.ok(from && to);
              for (let x = 0; x < cols; x++) {
                const a = from.getCell(x) as IBufferCell;
                const b = to.getCell(x) as IBufferCell;
                const where = `row ${y} column ${x + 1} of ${JSON.stringify(pieces.join(''))}`;
                assert.ok(isSafeText(b.getChars()), `nothing hidden drawn at ${where}`);
                const chars = a.getChars();
                const hidden = cellFlags(a) & INVISIBLE_FLAG;
                if (a.getWidth() === 0 && chars === '') {
                  // The second half of a wide character: checked with its first.
                } else if (chars === '' || hidden) {
                  assert.match(b.getChars(), /^ *$/, `a blank at ${where}`);
                  assert.equal(b.getBgColor(), a.getBgColor(), `its background at ${where}`);
                } else if (a.getWidth() === 0) {
                  // A zero-width character in a cell of its own: one column, the stand-in when
                  // every character of it is replaced.
                  assert.equal(b.getWidth(), 1, where);
                  const shown = [...chars].some((ch) => isSafeText(ch));
                  assert.equal(b.getChars().startsWith('\uFFFD'), !shown, where);
                } else {
                  assert.equal(b.getWidth(), a.getWidth(), `width at ${where}`);
                  const want = safeCellText(chars, a.getWidth());
                  const got = b.getChars();
                  // The next cell's own combining marks may join this one (as the agent's text reads).
                  assert.ok(got.startsWith(want.trimEnd()), `${JSON.stringify(got)} at ${where}`);
                  assert.equal(style(b), style(a), `style at ${where}`);
                }
              }
            }
          } finally {
            source.dispose();
            watcher.dispose();
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
