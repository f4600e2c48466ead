import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { EDGE_BYTES, type LineEvent, LineSplitter } from '../../../src/shared/line-splitter.js';

function split(chunks: (string | Buffer)[], maxLineBytes: number): LineEvent[] {
  const splitter = new LineSplitter(maxLineBytes);
  const events: LineEvent[] = [];
  for (const chunk of chunks) {
    splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk, (e) => events.push(e));
  }
  return events;
}

describe('LineSplitter', () => {
  it('splits on newlines across chunks and drops a trailing CR', () => {
    assert.deepEqual(split(['ab', 'c\nde', 'f\r\n', '\n'], 100), [
      { kind: 'line', text: 'abc' },
      { kind: 'line', text: 'def' },
      { kind: 'line', text: '' },
    ]);
  });

  it('keeps a multi-byte character split between chunks whole', () => {
    const bytes = Buffer.from('é€\n');
    assert.deepEqual(split([bytes.subarray(0, 1), bytes.subarray(1, 4), bytes.subarray(4)], 100), [
      { kind: 'line', text: 'é€' },
    ]);
  });

  it('accepts a line of exactly the limit and discards a longer one, keeping its edges', () => {
    const limit = 4 * EDGE_BYTES;
    const exact = 'x'.repeat(limit);
    const long = `HEAD${'y'.repeat(limit * 3)}TAIL`;
    const events = split([exact, '\n', long.slice(0, 10), long.slice(10), '\nnext\n'], limit);
    assert.deepEqual(events[0], { kind: 'line', text: exact });
    const overlong = events[1] as Extract<LineEvent, { kind: 'overlong' }>;
    assert.equal(overlong.kind, 'overlong');
    assert.equal(overlong.bytes, long.length);
    assert.ok(overlong.head.startsWith('HEAD') && overlong.head.length === EDGE_BYTES);
    assert.ok(overlong.tail.endsWith('TAIL') && overlong.tail.length === EDGE_BYTES);
    assert.deepEqual(events[2], { kind: 'line', text: 'next' });
  });

  it('never holds more than the limit, however the input is cut (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z\n]{0,40}$/), { maxLength: 30 }),
        fc.integer({ min: 1, max: 16 }),
        (chunks, limit) => {
          const splitter = new LineSplitter(limit);
          const lines: string[] = [];
          for (const chunk of chunks) {
            splitter.push(Buffer.from(chunk), (e) => {
              lines.push(e.kind === 'line' ? e.text : `<${e.bytes}>`);
            });
            assert.ok(splitter.pendingBytes <= Math.max(limit, 2 * EDGE_BYTES));
          }
          const whole = chunks.join('').split('\n').slice(0, -1);
          const expected = whole.map((l) => (l.length > limit ? `<${l.length}>` : l));
          assert.deepEqual(lines, expected);
        },
      ),
    );
  });
});
