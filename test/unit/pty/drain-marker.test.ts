import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { createDrainMarker, DrainMarker } from '../../../src/pty/drain-marker.js';

const MARKER = Buffer.from('\x1b]7799;MARK\x07', 'latin1');

/** Feeds `chunks` through `marker`; returns the bytes passed on, `found` after each chunk, and the flush. */
function feed(marker: DrainMarker, chunks: (string | Uint8Array)[]) {
  const out: Buffer[] = [];
  const found: boolean[] = [];
  for (const chunk of chunks) {
    const input = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    const scan = marker.scan(input);
    for (const c of scan.chunks) {
      assert.ok(c.length > 0 || input.length === 0, 'empty chunk made up');
      out.push(Buffer.from(c));
    }
    found.push(scan.found);
  }
  const flushed = Buffer.from(marker.flush());
  return {
    passed: Buffer.concat(out).toString('latin1'),
    found,
    flushed: flushed.toString('latin1'),
  };
}

/** Splits `data` at the given cut points (any order, duplicates allowed). */
function split(data: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const at of [...points, data.length]) {
    chunks.push(data.subarray(from, at));
    from = at;
  }
  return chunks;
}

describe('DrainMarker', () => {
  const m = MARKER.toString('latin1');
  const cases: [string, string[], string, boolean[]][] = [
    ['marker alone', [m], '', [true]],
    ['marker after output', [`out${m}`], 'out', [true]],
    ['output after the marker', [`a${m}b`, 'c'], 'abc', [true, true]],
    ['marker split in two', ['abc\x1b]77', '99;MARK\x07'], 'abc', [false, true]],
    [
      'marker one byte at a time',
      m.split(''),
      '',
      [
        ...m
          .slice(1)
          .split('')
          .map(() => false),
        true,
      ],
    ],
    ['a false start is passed on', ['x\x1b]77', '00;y'], 'x\x1b]7700;y', [false, false]],
    ['a false start then the marker', ['\x1b]7', m], '\x1b]7', [false, true]],
    ['no marker', ['plain', ' text'], 'plain text', [false, false]],
    ['a second marker is ordinary output', [`${m}x${m}`], `x${m}`, [true]],
  ];
  for (const [name, chunks, passed, found] of cases) {
    it(name, () => {
      const result = feed(new DrainMarker(MARKER), chunks);
      assert.equal(result.passed + result.flushed, passed);
      assert.deepEqual(result.found, found);
    });
  }

  it('holds back only a possible marker prefix, and flush releases it', () => {
    const marker = new DrainMarker(MARKER);
    const scan = marker.scan(Buffer.from('data\x1b]77', 'latin1'));
    assert.deepEqual(
      scan.chunks.map((c) => Buffer.from(c).toString('latin1')),
      ['data'],
    );
    assert.equal(Buffer.from(marker.flush()).toString('latin1'), '\x1b]77');
    assert.equal(marker.flush().length, 0);
    assert.equal(marker.found, false);
  });

  it('passes chunks through untouched once found', () => {
    const marker = new DrainMarker(MARKER);
    marker.scan(MARKER);
    const chunk = Buffer.from('later');
    assert.deepEqual(marker.scan(chunk), {
      chunks: [chunk],
      found: true,
      before: [],
      after: chunk,
    });
  });

  it('rejects an empty marker', () => {
    assert.throws(() => new DrainMarker(Buffer.alloc(0)), /empty/);
  });

  it('creates distinct OSC markers of fixed shape', () => {
    const a = createDrainMarker().bytes.toString('latin1');
    const b = createDrainMarker().bytes.toString('latin1');
    const prefix = '\x1b]7799;AGENTTTY';
    assert.ok(a.startsWith(prefix) && a.endsWith('\x07'), JSON.stringify(a));
    assert.match(a.slice(prefix.length, -1), /^[0-9A-Z]{16}$/);
    assert.notEqual(a, b);
    const fixed = createDrainMarker(() => 0.5).bytes.toString('latin1');
    assert.equal(fixed, createDrainMarker(() => 0.5).bytes.toString('latin1'));
  });
});

describe('DrainMarker properties', () => {
  const bytes = (max: number) => fc.uint8Array({ maxLength: max }).map((a) => Buffer.from(a));
  const markerArb = fc.oneof(
    fc.uint8Array({ minLength: 1, maxLength: 8 }).map((a) => Buffer.from(a)),
    fc.constant(MARKER),
    fc.constant(Buffer.from('aab')),
    fc.constant(Buffer.from('abab')),
  );
  // Small alphabets make partial matches and false starts common.
  const dataArb = (marker: Buffer) =>
    fc
      .array(
        fc.oneof(
          bytes(6),
          fc.constant(marker.subarray(0, -1)),
          fc.constantFrom(Buffer.from('a'), Buffer.from('b')),
        ),
        {
          maxLength: 8,
        },
      )
      .map((parts) => Buffer.concat(parts))
      .filter((data) => data.indexOf(marker) === -1);

  it('removes the marker exactly once, whatever the split', () => {
    const scenario = markerArb.chain((marker) =>
      fc.record({
        marker: fc.constant(marker),
        data: dataArb(marker),
        after: bytes(10),
        cuts: fc.array(fc.nat(), { maxLength: 8 }),
        withMarker: fc.boolean(),
      }),
    );
    fc.assert(
      fc.property(scenario, ({ marker, data, after, cuts, withMarker }) => {
        const stream = withMarker ? Buffer.concat([data, marker, after]) : data;
        const chunks = split(stream, cuts);
        const result = feed(new DrainMarker(marker), chunks);
        // The first occurrence is the one removed: data ending in a prefix of a marker whose
        // head repeats in its tail ("ab" + "abab", or M[0..5] + M when M[6] is M[0]) completes
        // a marker before the appended one begins.
        const at = stream.indexOf(marker);
        const expected = withMarker
          ? Buffer.concat([stream.subarray(0, at), stream.subarray(at + marker.length)])
          : data;
        assert.equal(result.passed + result.flushed, expected.toString('latin1'));
        // found turns true with the chunk that completes the marker, and stays true.
        const end = at + marker.length;
        let offset = 0;
        chunks.forEach((chunk, i) => {
          offset += chunk.length;
          assert.equal(result.found[i], withMarker && offset >= end, `chunk ${i}`);
        });
        if (withMarker) assert.equal(result.flushed, '');
      }),
      { numRuns: 500 },
    );
  });

  it('removes the first marker when the data completes one early (a found counterexample)', () => {
    const marker = Buffer.from([6, 10, 254, 48, 159, 191, 6]);
    const data = marker.subarray(0, -1);
    const result = feed(new DrainMarker(marker), [Buffer.concat([data, marker])]);
    assert.equal(result.passed + result.flushed, marker.subarray(1).toString('latin1'));
    assert.deepEqual(result.found, [true]);
  });
});
