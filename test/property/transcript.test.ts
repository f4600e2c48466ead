import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { Transcript } from '../../src/screen/transcript.js';
import {
  CHUNK_BYTES,
  CHUNK_LINES,
  INDEX_BYTES_PER_LINE,
} from '../../src/screen/transcript-chunk.js';
import { TranscriptFiles } from '../../src/session/transcript-files.js';

/**
 * The transcript against a model (every line ever appended, in an array): after any sequence of
 * appends under any bound, the kept lines are exactly the longest suffix whose cost (UTF-8 bytes
 * plus the index entry) fits the bound, the dropped ones are counted, and reading in pages of any
 * size gives the same lines, each once. Lines appended one by one or written in place in batches
 * (appendRows) are the same. All of it holds with full chunks kept in memory and kept in files on
 * disk, where the files never hold more than the bound plus a segment and a chunk.
 */

const ALL = Number.POSITIVE_INFINITY;
const cost = (line: string) => Buffer.byteLength(line, 'utf8') + INDEX_BYTES_PER_LINE;

/** Lines as screens hold them: any Unicode (no lone surrogates: safe text has none), some long. */
const line = fc.oneof(
  { weight: 5, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 3000 }) },
  { weight: 1, arbitrary: fc.constant('') },
);
const op = fc.oneof(
  { weight: 20, arbitrary: line.map((text) => ({ kind: 'line' as const, text })) },
  // Rows written in place, as history rows are: each at most maxLength bytes.
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.array(line, { maxLength: 30 }), fc.integer({ min: 0, max: 20_000 }))
      .map(([texts, extra]) => ({ kind: 'rows' as const, texts, extra })),
  },
  // A burst of blank rows crosses a chunk's line limit.
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1, max: CHUNK_LINES + 100 })
      .map((count) => ({ kind: 'blank' as const, count })),
  },
);

/** The longest suffix of `lines` whose cost fits `limit`: where it starts. */
function keptFrom(lines: readonly string[], limit: number): number {
  let sum = 0;
  let i = lines.length;
  while (i > 0 && sum + cost(lines[i - 1] as string) <= limit) sum += cost(lines[--i] as string);
  return i;
}

/** Every kept line, read in pages of at most `maxLines` lines and `maxBytes` bytes. */
function readInPages(t: Transcript, maxLines: number, maxBytes: number): string[] {
  const out: string[] = [];
  let since = 0;
  for (;;) {
    const page = t.read(since, maxLines, maxBytes);
    if (page.lines.length === 0) return out;
    assert.ok(page.lines.length <= maxLines);
    out.push(...page.lines);
    since = page.since + page.lines.length;
  }
}

/** A segment small enough that the runs fill and delete several. */
const SEGMENT_BYTES = 3 * CHUNK_BYTES;

describe('Transcript (property)', () => {
  const root = mkdtempSync(join(tmpdir(), 'agent-tty-test-transcript-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  for (const onDisk of [false, true]) {
    it(`keeps exactly the suffix that fits the bound, counts the rest, and pages losslessly (${onDisk ? 'files' : 'memory'})`, () => {
      checkTranscript(onDisk ? root : undefined);
    });
  }
});

function checkTranscript(root: string | undefined): void {
  let runs = 0;
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 200_000 }),
      fc.array(op, { maxLength: 60 }),
      fc.integer({ min: 1, max: 50 }),
      fc.integer({ min: 1, max: 5000 }),
      (limit, ops, maxLines, maxBytes) => {
        const store =
          root === undefined
            ? undefined
            : TranscriptFiles.create(root, `p${runs++}`, SEGMENT_BYTES);
        const t = new Transcript(limit, store);
        const model: string[] = [];
        for (const o of ops) {
          if (o.kind === 'rows') {
            const bytes = o.texts.map((text) => Buffer.from(text, 'utf8'));
            const maxLength = Math.max(0, ...bytes.map((b) => b.length)) + o.extra;
            const scratch = Buffer.alloc(maxLength);
            t.appendRows(bytes.length, maxLength, scratch, (i, out, at) => {
              return at + (bytes[i] as Buffer).copy(out, at);
            });
            model.push(...o.texts);
          } else {
            const texts = o.kind === 'line' ? [o.text] : Array.from({ length: o.count }, () => '');
            for (const text of texts) {
              t.appendText(text);
              model.push(text);
            }
          }
          const from = keptFrom(model, limit);
          assert.equal(t.total, model.length);
          assert.equal(t.dropped, from);
          const kept = model.slice(from);
          assert.equal(
            t.keptBytes,
            kept.reduce((n, l) => n + cost(l), 0),
          );
          assert.ok(t.keptBytes <= limit);
          if (store) {
            assert.ok(store.diskBytes <= limit + SEGMENT_BYTES + CHUNK_BYTES + 2 * CHUNK_LINES);
          }
          const all = t.read(0, ALL, ALL);
          assert.deepEqual(all.lines, kept);
          assert.equal(all.missedLines, from);
        }
        const from = keptFrom(model, limit);
        assert.deepEqual(readInPages(t, maxLines, maxBytes), model.slice(from));
        // Reading after any line gives the kept lines after it.
        for (const since of [0, from, Math.floor(model.length / 2), model.length]) {
          const page = t.read(since, ALL, ALL);
          assert.deepEqual(page.lines, model.slice(Math.max(since, from)));
          assert.equal(page.missedLines, Math.max(0, from - since));
          // The same page as bytes, for a search in a worker.
          const bytes = t.readBytes(since, maxLines, maxBytes);
          const decoded = Array.from(bytes.ends, (end, i) =>
            Buffer.from(bytes.utf8.subarray(i === 0 ? 0 : bytes.ends[i - 1], end)).toString(),
          );
          assert.deepEqual(decoded, t.read(since, maxLines, maxBytes).lines);
          assert.equal(bytes.since, page.since);
        }
        t.clear();
        if (store) assert.equal(existsSync(store.dir), false, 'the files go with the transcript');
      },
    ),
    { numRuns: 150 },
  );
}
