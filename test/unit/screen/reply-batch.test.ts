/**
 * ReplyBatch: the replies one parsed piece provokes go out as one write, at most PIECE_REPLY_BYTES
 * of them (issue 35, S10: a query flood answered one reply at a time held the server's thread).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PIECE_REPLY_BYTES, ReplyBatch } from '../../../src/screen/reply-batch.js';

function batchOf(limit?: number) {
  const writes: string[] = [];
  const batch = new ReplyBatch((data) => writes.push(Buffer.from(data).toString('latin1')), limit);
  return { batch, writes };
}

describe('ReplyBatch', () => {
  it('writes a reply at once outside a piece', () => {
    const { batch, writes } = batchOf();
    batch.add('\x1b[1;1R');
    assert.deepEqual(writes, ['\x1b[1;1R']);
  });

  it('gathers the replies of a piece and writes them once, in order, when it is parsed', () => {
    const { batch, writes } = batchOf();
    batch.hold();
    for (let i = 0; i < 10_000; i++) batch.add('\x1b[1;1R');
    batch.add(Buffer.from([0x1b, 0x5b, 0x4d, 0xff]));
    batch.add('\x1b[0n');
    assert.deepEqual(writes, [], 'nothing is written while the piece is parsed');
    batch.release();
    assert.equal(writes.length, 1);
    assert.equal(writes[0], `${'\x1b[1;1R'.repeat(10_000)}\x1b[M\xff\x1b[0n`);
    assert.equal(batch.writes, 1);
    batch.release();
    assert.equal(writes.length, 1, 'a second release writes nothing');
  });

  it('gathers at most its limit of bytes per piece and counts what it leaves unanswered', () => {
    const { batch, writes } = batchOf(20);
    batch.hold();
    for (let i = 0; i < 5; i++) batch.add('\x1b[1;1R'); // 6 bytes each: 3 fit
    batch.release();
    assert.deepEqual(writes, ['\x1b[1;1R'.repeat(3)]);
    assert.equal(batch.dropped, 2);
    batch.hold();
    batch.add('\x1b[1;1R');
    batch.release();
    assert.equal(writes[1], '\x1b[1;1R', 'the bound is per piece');
  });

  it('counts UTF-8 bytes against the limit', () => {
    const { batch, writes } = batchOf(4);
    batch.hold();
    batch.add('é'); // 2 bytes
    batch.add('éé'); // 4 bytes: over
    batch.add('ab');
    batch.release();
    assert.deepEqual(
      writes.map((w) => Buffer.from(w, 'latin1').toString('utf8')),
      ['éab'],
    );
    assert.equal(batch.dropped, 1);
  });

  it('a new piece sends what the previous one still held', () => {
    const { batch, writes } = batchOf();
    batch.hold();
    batch.add('a');
    batch.hold();
    batch.add('b');
    batch.release();
    assert.deepEqual(writes, ['a', 'b']);
  });

  it('discards what is gathered', () => {
    const { batch, writes } = batchOf();
    batch.hold();
    batch.add('a');
    batch.discard();
    batch.release();
    assert.deepEqual(writes, []);
  });

  it('its default bound is the 64 KiB of replies that may wait for a program', () => {
    assert.equal(PIECE_REPLY_BYTES, 64 * 1024);
  });
});
