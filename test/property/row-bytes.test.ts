import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { encodeRawRow, MAX_CELL_BYTES, readRowText } from '../../src/screen/row-bytes.js';
import { createTerminal, type Terminal } from '../../src/screen/xterm.js';
import { normalBuffer } from '../../src/screen/xterm-buffers.js';
import { asRawLine } from '../../src/screen/xterm-core.js';

/**
 * History rows are kept as bytes written straight from the emulator's cell words; they must be
 * exactly the text the public-API reader gives (readCells, trimmed), for any output: wide
 * characters cut by the edge, joining marks, concealed cells, controls and invisible characters
 * shown as stand-ins, styled blanks, trailing spaces of every kind.
 */

const cp = fc.oneof(
  fc.integer({ min: 0x20, max: 0x7e }),
  fc.constantFrom(0x20, 0xa0, 0x3000, 0x2003, 0x1680, 0x202f, 0x205f, 0x200a),
  fc.constantFrom(0x4e2d, 0x65e5, 0x1f600, 0x1f44d, 0xff21),
  fc.constantFrom(0x300, 0x301, 0x20dd, 0x200b, 0x200d, 0xfe0f, 0x1d167),
  fc.constantFrom(0x202e, 0x2066, 0x200e, 0x061c, 0xfeff, 0x2028, 0xe0041, 0x85, 0x9b),
  fc.integer({ min: 0xa1, max: 0x2fff }),
);
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.array(cp, { maxLength: 12 }).map((c) => String.fromCodePoint(...c)) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '\x1b[8m',
      '\x1b[28m',
      '\x1b[0m',
      '\x1b[41m',
      '\x1b[1;32m',
      '\x1b[K',
      '\x1b[5G',
      '\x1b[2C',
      '\t',
      '\b',
      '\r\n',
      '\x1b[38;2;1;2;3m',
      // More joining marks than a cell keeps.
      `a${'\u0301'.repeat(40)}`,
      `\u{1f600}${'\u{1d167}'.repeat(20)}`,
    ),
  },
);

function write(term: Terminal, data: string): Promise<void> {
  return new Promise((resolve) => term.write(data, resolve));
}

describe('encodeRawRow (property)', () => {
  it('writes exactly the UTF-8 of the text readCells reads, trimmed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 30 }),
        fc.integer({ min: 2, max: 30 }),
        async (pieces, cols) => {
          const term = createTerminal({ cols, rows: 4, scrollback: 100 });
          try {
            await write(term, pieces.join(''));
            const normal = normalBuffer(term);
            assert.ok(normal, 'the emulator internals are as expected');
            const out = Buffer.alloc(cols * MAX_CELL_BYTES);
            for (let y = 0; y < normal.lines.length; y++) {
              const raw = asRawLine(normal.lines.get(y));
              const line = term.buffer.normal.getLine(y);
              assert.ok(raw && line);
              const bytes = out.subarray(0, encodeRawRow(raw, cols, out));
              assert.equal(bytes.toString('utf8'), readRowText(line, cols), `row ${y}`);
            }
          } finally {
            term.dispose();
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
