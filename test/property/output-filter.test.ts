import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { FilteredPiece } from '../../src/screen/filter-pieces.js';
import { OutputFilter } from '../../src/screen/output-filter.js';
import { cellWidth, createTerminal, type Terminal } from '../../src/screen/xterm.js';

/**
 * The output filter against the emulator itself: ordinary output passes byte for byte however it
 * is cut into chunks; for any output, the filter's idea of the parser state is the emulator's,
 * no cell holds more than 32 UTF-16 units, and no string payload longer than the limit reaches
 * a handler.
 */

const enc = (s: string) => Buffer.from(s, 'utf8');
const ESC = '\x1b';

/** Code points that take a cell of their own (never join the one before). */
const wideOrNarrow = fc
  .integer({ min: 0x20, max: 0x2ffff })
  .filter((cp) => cp !== 0x7f && (cp < 0x80 || cp >= 0xa0) && (cp < 0xd800 || cp > 0xdfff))
  .filter((cp) => cellWidth(cp) > 0);
const mark = fc.constantFrom(0x300, 0x301, 0x36f, 0x489, 0x20dd, 0xfe20, 0x1d167);
const text = fc
  .array(wideOrNarrow, { maxLength: 8 })
  .map((cps) => enc(String.fromCodePoint(...cps)));
/** A character and `n` marks (BMP marks only while ordinary: 30 of them stay within 32 units). */
const markRun = (max: number, marks: fc.Arbitrary<number>) =>
  fc
    .tuple(fc.constantFrom(0x61, 0x4e2d, 0x1f600), fc.array(marks, { maxLength: max }))
    .map(([base, ms]) => enc(String.fromCodePoint(base, ...ms)));
const invalid = fc.constantFrom(
  [0xff],
  [0x80],
  [0xc0, 0xaf],
  [0xe2, 0x80],
  [0xc2],
  [0xed, 0xa0, 0x80],
  [0xef, 0xbb, 0xbf],
  [0xf8, 0x88],
  [0xf0, 0x9f, 0x98],
);
const control = fc.constantFrom(
  '\r\n',
  '\x07',
  '\x08',
  '\x18',
  '\x1a',
  `${ESC}[31m`,
  `${ESC}[2;5H`,
  `${ESC}[?1049h`,
  `${ESC}[?1049l`,
  `${ESC}[1<m`,
  `${ESC}[3b`,
  `${ESC}(0`,
  `${ESC}(B`,
  `${ESC}7`,
  `${ESC}\\`,
  '\u0085',
  '\u009b1m',
  '\u009c',
  '\x7f',
  ESC,
);
const stringOpen = fc.constantFrom(
  `${ESC}]2;`,
  `${ESC}]8;;`,
  `${ESC}]5555;`,
  `${ESC}P$q`,
  `${ESC}P1;2|`,
  `${ESC}_G`,
  `${ESC}^`,
  `${ESC}X`,
  '\u009d0;',
  '\u0090$q',
  '\u009f',
);
const stringEnd = fc.constantFrom('\x07', `${ESC}\\`, '\u009c', '\x18', '\x1a', '');
const stringSeq = (max: number) =>
  fc
    .tuple(stringOpen, fc.array(fc.oneof(wideOrNarrow, mark), { maxLength: max }), stringEnd)
    .map(([open, body, end]) => enc(open + String.fromCodePoint(...body) + end));

const tokens = (opts: { marks: number; markArb: fc.Arbitrary<number>; string: number }) =>
  fc.array(
    fc.oneof(
      text,
      markRun(opts.marks, opts.markArb),
      invalid.map((b) => Uint8Array.from(b)),
      control.map(enc),
      stringSeq(opts.string),
    ),
    { maxLength: 40 },
  );

/** Cuts `data` at the given fractions into chunks. */
function chunked(data: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => Math.floor(c * data.length)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const to of [...at, data.length]) {
    chunks.push(data.subarray(from, to));
    from = to;
  }
  return chunks;
}

const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 });

/** Cuts `data` into chunks of 1 to 8 bytes, so that states are compared all along. */
function smallChunks(data: Uint8Array, seed: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let x = seed >>> 0 || 1;
  for (let from = 0; from < data.length; ) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const to = Math.min(data.length, from + 1 + ((x >>> 0) % 8));
    chunks.push(data.subarray(from, to));
    from = to;
  }
  return chunks;
}

describe('output filter', () => {
  it('passes ordinary output byte for byte, however it is cut', () => {
    const ordinary = tokens({ marks: 30, markArb: mark.filter((m) => m <= 0xffff), string: 300 });
    fc.assert(
      fc.property(ordinary, cuts, fc.integer({ min: 8, max: 64 }), (parts, at, pieceBytes) => {
        const data = Buffer.concat(parts);
        const filter = new OutputFilter({ widthOf: cellWidth, maxPieceBytes: pieceBytes });
        const out: Uint8Array[] = [];
        for (const chunk of chunked(data, at)) {
          for (const piece of filter.push(chunk)) {
            assert.ok(piece.bytes.length <= pieceBytes, 'a piece fits the emulator slice');
            out.push(piece.bytes);
          }
        }
        assert.deepEqual(Buffer.concat([...out, filter.held]), data);
        assert.ok(filter.held.length <= 3);
      }),
      { numRuns: 500 },
    );
  });

  it('follows the emulator parser and keeps cells and strings bounded', async () => {
    const hostile = tokens({ marks: 80, markArb: mark, string: 120 });
    await fc.assert(
      fc.asyncProperty(hostile, fc.integer(), async (parts, seed) => {
        const term = createTerminal({ cols: 20, rows: 5, scrollback: 20 });
        const payloads: string[] = [];
        term.parser.registerOscHandler(5555, (data) => {
          payloads.push(data);
          return true;
        });
        const filter = new OutputFilter({
          widthOf: cellWidth,
          maxStringBytes: 40,
          maxPieceBytes: 16,
        });
        try {
          for (const chunk of smallChunks(Buffer.concat(parts), seed)) {
            await writeAll(term, filter.push(chunk));
            assert.equal(filter.state, parserState(term), 'parser state');
          }
          assert.ok(maxCellUnits(term) <= 32, `a cell holds ${maxCellUnits(term)} units`);
          for (const p of payloads) assert.ok(Buffer.byteLength(p) <= 40, `payload ${p.length}`);
        } finally {
          term.dispose();
        }
      }),
      { numRuns: 200 },
    );
  });
});

function writeAll(term: Terminal, pieces: FilteredPiece[]): Promise<void> {
  return new Promise((resolve) => {
    if (pieces.length === 0) resolve();
    pieces.forEach((p, i) => {
      term.write(p.bytes, i === pieces.length - 1 ? resolve : undefined);
    });
  });
}

function parserState(term: Terminal): number {
  const core = (
    term as unknown as { _core: { _inputHandler: { _parser: { currentState: number } } } }
  )._core;
  return core._inputHandler._parser.currentState;
}

function maxCellUnits(term: Terminal): number {
  let max = 0;
  for (const buffer of [term.buffer.normal, term.buffer.alternate]) {
    for (let y = 0; y < buffer.length; y++) {
      const line = buffer.getLine(y);
      if (!line) continue;
      for (let x = 0; x < line.length; x++) {
        max = Math.max(max, line.getCell(x)?.getChars().length ?? 0);
      }
    }
  }
  return max;
}
