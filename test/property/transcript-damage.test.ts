import assert from 'node:assert/strict';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import * as zlib from 'node:zlib';
import fc from 'fast-check';
import { Transcript } from '../../src/screen/transcript.js';
import { CHUNK_BYTES } from '../../src/screen/transcript-chunk.js';
import { TranscriptFiles } from '../../src/session/transcript-files.js';

/**
 * A transcript whose files another program cuts short or overwrites (a same-user `truncate`, a
 * faulty disk) loses lines, never the server: reading history, the scrollback, pages as bytes and
 * appending on (which drops the oldest lines, reading their index back) never throw and never
 * hang; every line read is the line appended under that number (the files' CRC-32 catches
 * changed bytes); lines lost beyond what the bound drops are counted as dropped, and storeError
 * says why. The store alone: a chunk read back is what was stored, or a coded error.
 * Contract: spec/guarantees.md (Transcript).
 */

const ALL = Number.POSITIVE_INFINITY;
/** Several segments of a few chunks each. */
const SEGMENT_BYTES = 3 * CHUNK_BYTES;
/** Changed bytes are caught where zlib has CRC-32 (Node 20.15+); else only cut-short files. */
const HAS_CRC = typeof zlib.crc32 === 'function';

/** Line n: its number, then filler to `width` bytes, so a chunk holds a few hundred. */
const lineOf = (n: number, width: number) =>
  `${n}:`.padEnd(width, String.fromCharCode(97 + (n % 26)));

/** What is done to one segment file: where, as a fraction of its length. */
const damage = fc.oneof(
  fc.record({
    kind: fc.constant('truncate' as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
  }),
  fc.record({
    kind: fc.constant('overwrite' as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 64 }),
  }),
  fc.record({
    kind: fc.constant('flip' as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    xor: fc.integer({ min: 1, max: 255 }),
  }),
);

type Damage = typeof damage extends fc.Arbitrary<infer T> ? T : never;

/** Does `d` to one of the directory's segment files, picked by `pick`. */
function harm(dir: string, pick: number, d: Damage): void {
  const files = readdirSync(dir).filter((n) => n.startsWith('segment-'));
  if (files.length === 0) return;
  const path = join(dir, files[pick % files.length] as string);
  const size = statSync(path).size;
  const at = Math.min(size, Math.floor(d.at * size));
  if (d.kind === 'truncate') {
    truncateSync(path, at);
    return;
  }
  const fd = openSync(path, 'r+');
  try {
    if (d.kind === 'overwrite') {
      writeSync(fd, d.bytes, 0, d.bytes.length, at);
    } else if (at < size) {
      const one = Buffer.alloc(1);
      readSync(fd, one, 0, 1, at);
      one[0] = (one[0] as number) ^ d.xor;
      writeSync(fd, one, 0, 1, at);
    }
  } finally {
    closeSync(fd);
  }
}

/** Reading after damage: a page loop, the scrollback, a byte page, or more lines appended. */
const step = fc.oneof(
  fc.record({ kind: fc.constant('pages' as const), maxLines: fc.integer({ min: 1, max: 400 }) }),
  fc.record({ kind: fc.constant('tail' as const), lines: fc.integer({ min: 1, max: 3000 }) }),
  fc.record({
    kind: fc.constant('bytes' as const),
    since: fc.double({ min: 0, max: 1, noNaN: true }),
  }),
  fc.record({ kind: fc.constant('append' as const), count: fc.integer({ min: 1, max: 1500 }) }),
);

describe('Transcript with damaged files (property)', () => {
  const root = mkdtempSync(join(tmpdir(), 'agent-tty-test-transcript-damage-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  let runs = 0;

  it('loses lines, never throws or hangs, reads only true lines and says why', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 200, max: 3000 }),
        fc.integer({ min: 40, max: 600 }),
        fc.constantFrom(400_000, 1 << 30),
        fc.array(fc.tuple(fc.nat(), damage), { minLength: 1, maxLength: 3 }),
        fc.array(step, { minLength: 1, maxLength: 6 }),
        (count, width, limit, damages, steps) => {
          const files = TranscriptFiles.create(root, `d${runs++}`, SEGMENT_BYTES);
          const t = new Transcript(limit, files);
          // The same lines in memory: what the bound alone drops.
          const twin = new Transcript(limit);
          const add = (k: number) => {
            for (let i = 0; i < k; i++) {
              const text = lineOf(t.total + 1, width);
              t.appendText(text);
              twin.appendText(text);
            }
          };
          const check = (lines: readonly string[], first: number) => {
            if (!HAS_CRC) return;
            lines.forEach((line, i) => {
              assert.equal(line, lineOf(first + i, width), `line ${first + i}`);
            });
          };
          try {
            add(count);
            for (const [pick, d] of damages) harm(files.dir, pick, d);
            for (const s of steps) {
              if (s.kind === 'append') add(s.count);
              else if (s.kind === 'tail') {
                const n = Math.min(s.lines, t.total);
                const page = t.read(t.total - n, n, ALL);
                check(page.lines, page.since + 1);
              } else if (s.kind === 'bytes') {
                const since = Math.floor(s.since * t.total);
                const page = t.readBytes(since, 2000, 1 << 20);
                const lines = Array.from(page.ends, (end, i) =>
                  Buffer.from(page.utf8.subarray(i === 0 ? 0 : page.ends[i - 1], end)).toString(),
                );
                check(lines, page.since + 1);
              } else {
                let since = 0;
                // Each page moves on or ends the loop: at most a page per line.
                for (let guard = 0; guard <= t.total + 1; guard++) {
                  const page = t.read(since, s.maxLines, ALL);
                  assert.ok(page.since >= since);
                  check(page.lines, page.since + 1);
                  if (page.lines.length === 0) break;
                  since = page.since + page.lines.length;
                }
              }
              assert.equal(t.total, twin.total);
              assert.ok(t.dropped >= twin.dropped);
              assert.ok(t.keptBytes <= limit);
              if (t.dropped > twin.dropped) {
                assert.match(t.storeError ?? '', /could not be read back/);
              }
            }
            // Everything kept can still be read, and is true.
            const rest = t.read(0, ALL, ALL);
            assert.equal(rest.since, t.dropped);
            check(rest.lines, rest.since + 1);
            assert.equal(rest.since + rest.lines.length, t.total);
          } finally {
            t.clear();
          }
        },
      ),
      { numRuns: 120 },
    );
  });

  it('the store gives back what it stored or a coded error, never other bytes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 20_000 }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(), damage), { minLength: 1, maxLength: 3 }),
        (sizes, damages) => {
          const files = TranscriptFiles.create(root, `s${runs++}`, SEGMENT_BYTES);
          try {
            const stored = sizes.map((size, k) => {
              const index = new Uint8Array(2 * (1 + (k % 5))).fill(k);
              const text = new Uint8Array(size).map((_, i) => (i * 7 + k) & 0xff);
              const at = files.put(index, text);
              return { at, whole: Buffer.concat([index, text]), indexLength: index.length };
            });
            for (const [pick, d] of damages) harm(files.dir, pick, d);
            for (const { at, whole, indexLength } of stored) {
              for (const length of [at.length, indexLength]) {
                const into = Buffer.alloc(length);
                try {
                  files.get(at, into, length);
                } catch (err) {
                  const code = (err as { code?: string }).code;
                  assert.ok(code === 'ETRUNCATED' || code === 'EBADCRC', `code ${code}`);
                  assert.match((err as Error).message, new RegExp(`^${code}: `));
                  continue;
                }
                if (HAS_CRC) assert.ok(into.equals(whole.subarray(0, length)), 'the stored bytes');
              }
            }
          } finally {
            files.remove();
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a segment truncated to nothing: the scrollback and history report it, appending goes on', () => {
    const files = TranscriptFiles.create(root, `z${runs++}`, SEGMENT_BYTES);
    const t = new Transcript(1 << 20, files);
    const width = 200;
    for (let n = 1; n <= 6000; n++) t.appendText(lineOf(n, width));
    const first = readdirSync(files.dir)
      .filter((n) => n.startsWith('segment-'))
      .sort()[0];
    truncateSync(join(files.dir, first as string), 0);
    const page = t.read(0, 2000, ALL);
    assert.ok(page.missedLines > 0, 'the lost lines are counted as missed');
    assert.equal(page.since, page.missedLines);
    checkLines(page.lines, page.since + 1, width);
    assert.match(
      t.storeError ?? '',
      new RegExp(`could not be read back .*ETRUNCATED: .*${first} is truncated`),
    );
    // Appending on drops the oldest lines past the bound, reading their index back: no throw.
    for (let n = 6001; n <= 20_000; n++) t.appendText(lineOf(n, width));
    assert.equal(t.total, 20_000);
    const rest = t.read(0, ALL, ALL);
    checkLines(rest.lines, rest.since + 1, width);
    assert.equal(rest.since + rest.lines.length, 20_000);
    t.clear();
  });
});

function checkLines(lines: readonly string[], first: number, width: number): void {
  lines.forEach((line, i) => {
    assert.equal(line, lineOf(first + i, width));
  });
}
