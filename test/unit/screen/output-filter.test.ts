import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_CELL_UNITS } from '../../../src/screen/cell-join.js';
import {
  MAX_STRING_BYTES,
  OutputFilter,
  type OutputFilterOptions,
} from '../../../src/screen/output-filter.js';
import { Screen } from '../../../src/screen/screen.js';
import { cellWidth } from '../../../src/screen/xterm.js';

const ESC = '\x1b';
const ACUTE = '\u0301';

function run(chunks: (string | Uint8Array)[], options: Partial<OutputFilterOptions> = {}) {
  const filter = new OutputFilter({ widthOf: cellWidth, ...options });
  const pieces = chunks.flatMap((c) => filter.push(typeof c === 'string' ? Buffer.from(c) : c));
  return {
    text: Buffer.concat(pieces.map((p) => p.bytes)).toString('utf8'),
    pieces,
    filter,
  };
}

describe('OutputFilter', () => {
  it('keeps a character and 31 joined marks (32 units), and drops the rest of the run', () => {
    const { text } = run([`e${ACUTE.repeat(100)}x${ACUTE}`]);
    assert.equal(text, `e${ACUTE.repeat(MAX_CELL_UNITS - 1)}x${ACUTE}`);
  });

  it('counts a run across chunks, and astral marks as two units', () => {
    const tremolo = '\u{1d167}';
    const { text } = run([`中${tremolo.repeat(10)}`, tremolo.repeat(10), `${ACUTE}ok`]);
    assert.equal(text, `中${tremolo.repeat(15)}ok`);
  });

  it('starts a new count after anything that ends the run', () => {
    const { text } = run([`e${ACUTE.repeat(31)}\r${ACUTE.repeat(40)}${ESC}[1m${ACUTE.repeat(40)}`]);
    assert.equal(text, `e${ACUTE.repeat(31)}\r${ACUTE.repeat(40)}${ESC}[1m${ACUTE.repeat(40)}`);
  });

  it('keeps counting through a sequence the parser ignores without ending the run', () => {
    // CSI with a private marker after a parameter is ignored: the marks after it still join.
    const { text } = run([`e${ACUTE.repeat(31)}${ESC}[1<m${ACUTE.repeat(5)}`]);
    assert.equal(text, `e${ACUTE.repeat(31)}${ESC}[1<m`);
  });

  it('cancels a string past the limit and drops it up to its terminator', () => {
    const long = 'x'.repeat(MAX_STRING_BYTES + 10);
    const { text } = run([`a${ESC}]2;${long.slice(0, 1000)}`, long.slice(1000), '\x07b']);
    assert.equal(text, `a${ESC}]2;${long.slice(0, MAX_STRING_BYTES - 2)}\x18b`);
  });

  it('lets the ESC that ends a cancelled string through, and C1 strings count too', () => {
    const { text } = run([`${ESC}]0;${'y'.repeat(20)}${ESC}\\c\u009d0;${'z'.repeat(20)}\u009cd`], {
      maxStringBytes: 8,
    });
    // The payload counts from after the introducer: "0;" is part of it.
    assert.equal(text, `${ESC}]0;${'y'.repeat(6)}\x18${ESC}\\c\u009d0;${'z'.repeat(6)}\x18d`);
  });

  it('bounds DCS and APC strings alike', () => {
    const { text } = run([`${ESC}P$q${'m'.repeat(20)}${ESC}\\${ESC}_G${'A'.repeat(20)}\u009c.`], {
      maxStringBytes: 10,
    });
    assert.equal(text, `${ESC}P$q${'m'.repeat(8)}\x18${ESC}\\${ESC}_G${'A'.repeat(9)}\x18.`);
  });

  it('holds back a character cut by the end of a chunk until the rest arrives', () => {
    const quote = Buffer.from('\u201c');
    const { pieces, filter, text } = run([quote.subarray(0, 2)]);
    assert.equal(pieces.length, 0);
    assert.deepEqual([...filter.held], [0xe2, 0x80]);
    const rest = filter.push(quote.subarray(2));
    assert.equal(Buffer.from(rest[0]?.bytes ?? []).toString(), '\u201c');
    assert.equal(text, '');
  });

  it('cuts pieces no larger than the limit, between characters', () => {
    const { pieces, text } = run(['é'.repeat(100)], { maxPieceBytes: 15 });
    assert.ok(pieces.length > 1);
    for (const p of pieces) {
      assert.ok(p.bytes.length <= 15);
      assert.equal(Buffer.from(p.bytes).toString(), 'é'.repeat(p.bytes.length / 2));
    }
    assert.equal(text, 'é'.repeat(100));
  });

  it('says when a piece may hold a long cell: many marks, or REP after one', () => {
    assert.equal(run([`e${ACUTE.repeat(5)}`]).pieces[0]?.hasLongCells, false);
    assert.equal(run([`e${ACUTE.repeat(20)}`]).pieces[0]?.hasLongCells, true);
    const filter = new OutputFilter({ widthOf: cellWidth });
    filter.push(Buffer.from(`e${ACUTE.repeat(20)}`));
    assert.equal(filter.push(Buffer.from(`${ESC}[99b`))[0]?.hasLongCells, true);
  });
});

describe('Screen with the output filter', () => {
  async function screenAfter(output: string) {
    const screen = new Screen({ cols: 40, rows: 4, scrollback: 10, onReply: () => {} });
    screen.write(Buffer.from(output));
    await screen.whenParsed();
    return screen;
  }

  it('does not take a title longer than the string limit, and prints what follows', async () => {
    const screen = await screenAfter(
      `${ESC}]2;short\x07${ESC}]2;${'t'.repeat(MAX_STRING_BYTES + 1)}\x07after`,
    );
    assert.equal(screen.title, 'short');
    assert.equal(screen.grid().screen[0], 'after');
    screen.dispose();
  });

  it('reports parsing done when output ends inside a character', async () => {
    const screen = await screenAfter('ok\xe2'.slice(0, 2));
    screen.write(Uint8Array.of(0xe2, 0x80));
    await screen.whenParsed();
    assert.equal(screen.pendingBytes, 0);
    screen.write(Uint8Array.of(0x9c));
    await screen.whenParsed();
    assert.equal(screen.grid().screen[0], 'ok\u201c');
    screen.dispose();
  });
});
