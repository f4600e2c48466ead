import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  concat,
  type FilteredPiece,
  MAX_PIECE_BYTES,
  PieceBuilder,
} from '../../../src/screen/filter-pieces.js';

const text = (pieces: FilteredPiece[]) =>
  pieces.map((p) => Buffer.from(p.bytes).toString('latin1'));

describe('PieceBuilder', () => {
  it('passes a push whole as one piece, without a copy', () => {
    const out = new PieceBuilder();
    const data = Buffer.from('hello');
    out.begin(data);
    out.maybeCut(5);
    out.endRun(5);
    const pieces = out.finish();
    assert.deepEqual(text(pieces), ['hello']);
    assert.equal((pieces[0] as FilteredPiece).bytes.buffer, data.buffer);
    assert.equal((pieces[0] as FilteredPiece).hasLongCells, false);
    assert.deepEqual(out.finish(), [], 'nothing left');
  });

  it('leaves bytes out, and puts bytes in', () => {
    const out = new PieceBuilder();
    out.begin(Buffer.from('abXYcd'));
    out.drop(2, 4);
    out.endRun(5);
    out.insert(Uint8Array.of(0x18));
    out.endRun(6);
    assert.deepEqual(text(out.finish()), ['abc\x18d']);
  });

  it('skips input until resumed', () => {
    const out = new PieceBuilder();
    out.begin(Buffer.from('ab]longstring\\cd'));
    out.endRun(2);
    out.skip();
    assert.equal(out.isSkipping, true);
    out.drop(2, 5);
    out.endRun(10);
    out.resume(14);
    out.endRun(16);
    assert.deepEqual(text(out.finish()), ['abcd']);
  });

  it('marks a dropped mark with 0xff when the bytes before it went out in an earlier piece', () => {
    const out = new PieceBuilder();
    out.begin(Buffer.from('a\x80\x80M', 'latin1'));
    out.dropMark(1, 4); // the run started at 0: what decodes to nothing goes with the mark
    out.endRun(4);
    assert.deepEqual(text(out.finish()), ['a']);
    const cut = new PieceBuilder();
    cut.begin(Buffer.from('a\x80\x80M', 'latin1'));
    cut.endRun(3); // a, then two bytes that decode to nothing, went out already
    cut.dropMark(1, 4);
    cut.endRun(4);
    assert.deepEqual(text(cut.finish()), ['a\x80\x80\xff']);
  });

  it('cuts pieces at a place between characters once fewer than 5 bytes are left', () => {
    const out = new PieceBuilder(16);
    const data = Buffer.from('0123456789abcdefghij');
    out.begin(data);
    assert.equal(out.room(0), 11);
    for (let end = 1; end <= 20; end++) out.maybeCut(end);
    out.endRun(20);
    // Cut once 12 bytes are kept: 12 + 5 > 16.
    assert.deepEqual(text(out.finish()), ['0123456789ab', 'cdefghij']);
  });

  it('says which pieces may write a long cell', () => {
    const out = new PieceBuilder(8);
    out.begin(Buffer.from('abcdefgh'));
    out.hasLongCells = true;
    out.maybeCut(4);
    out.endRun(8);
    const pieces = out.finish();
    assert.deepEqual(
      pieces.map((p) => p.hasLongCells),
      [true, false],
    );
    assert.equal(MAX_PIECE_BYTES, 128 * 1024);
  });
});

describe('concat', () => {
  it('puts parts end to end', () => {
    assert.deepEqual(
      [...concat([Uint8Array.of(1, 2), new Uint8Array(0), Uint8Array.of(3)])],
      [1, 2, 3],
    );
    assert.deepEqual(concat([]).length, 0);
  });
});
