import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statfsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { type ChunkStore, MAX_UNSTORED_BYTES } from '../../../src/screen/chunk-store.js';
import { Transcript } from '../../../src/screen/transcript.js';
import { CHUNK_BYTES, type StoredChunk } from '../../../src/screen/transcript-chunk.js';
import {
  defaultTranscriptDir,
  MEMORY_FALLBACK_BYTES,
  placeTranscript,
  segmentBytesFor,
  TRANSCRIPT_DIR_PREFIX,
  TranscriptFiles,
} from '../../../src/session/transcript-files.js';

const ALL = Number.POSITIVE_INFINITY;
const root = mkdtempSync(join(tmpdir(), 'agent-tty-test-transcript-files-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** Lines that fill several chunks: numbered, of varying length, some multi-byte. */
const lineOf = (i: number) => `${i} ${'é'.repeat(i % 13)}${'x'.repeat((i * 7) % 150)}`;

describe('TranscriptFiles', () => {
  it('keeps full chunks in 0600 files in a 0700 directory and reads every line back', () => {
    const store = TranscriptFiles.create(root, 't1', 256 * 1024);
    assert.ok(store.dir.startsWith(join(root, `${TRANSCRIPT_DIR_PREFIX}t1-`)));
    const t = new Transcript(1 << 30, store);
    for (let i = 1; i <= 50_000; i++) t.appendText(lineOf(i));
    assert.equal(statSync(store.dir).mode & 0o777, 0o700);
    const files = readdirSync(store.dir).filter((f) => f.startsWith('segment-'));
    assert.ok(files.length > 3, `several segments: ${files}`);
    for (const f of files) assert.equal(statSync(join(store.dir, f)).mode & 0o777, 0o600);
    assert.ok(t.allocatedBytes < 4 * CHUNK_BYTES + 64 * 1024, `memory: ${t.allocatedBytes}`);
    const lines = t.read(0, ALL, ALL).lines;
    assert.equal(lines.length, 50_000);
    for (const i of [1, 2, 9_999, 25_000, 49_999, 50_000]) assert.equal(lines[i - 1], lineOf(i));
    // Paging from any line, as bytes too.
    const page = t.readBytes(31_000, 3, ALL);
    const decoded = Array.from(page.ends, (end, k) =>
      Buffer.from(page.utf8.subarray(k === 0 ? 0 : page.ends[k - 1], end)).toString(),
    );
    assert.deepEqual(decoded, [lineOf(31_001), lineOf(31_002), lineOf(31_003)]);
    t.clear();
    assert.equal(existsSync(store.dir), false);
  });

  it('deletes a segment once every line in it is dropped: the files stay near the bound', () => {
    const limit = 2 * 1024 * 1024;
    const segment = segmentBytesFor(limit);
    const store = TranscriptFiles.create(root, 't2', segment);
    const t = new Transcript(limit, store);
    for (let i = 1; i <= 200_000; i++) t.appendText(lineOf(i));
    assert.ok(t.dropped > 100_000);
    assert.ok(store.diskBytes <= limit + segment + CHUNK_BYTES * 2, `${store.diskBytes}`);
    assert.equal(t.read(t.dropped, 1, ALL).lines[0], lineOf(t.dropped + 1));
    assert.equal(t.read(0, ALL, ALL).lines.at(-1), lineOf(200_000));
    t.clear();
  });

  it('places a transcript in memory, saying why, when its directory cannot be made', () => {
    const place = placeTranscript(join(root, 'missing', 'deeper'), 't3', 1 << 30);
    assert.equal(place.store, undefined);
    assert.equal(place.limitBytes, MEMORY_FALLBACK_BYTES);
    assert.match(place.error ?? '', /kept in memory.*could not be made.*ENOENT/);
    const t = new Transcript(place.limitBytes, place.store, place.error);
    assert.match(t.storeError ?? '', /kept in memory/);
  });
});

/**
 * A store in front of real files that refuses writes while `full` is set, as a full disk does
 * (ENOSPC); the end-to-end test fills a real file-size limit.
 */
class FillingStore implements ChunkStore {
  full = false;
  constructor(private readonly _files: TranscriptFiles) {}
  put(index: Uint8Array, text: Uint8Array): StoredChunk {
    if (this.full) {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    }
    return this._files.put(index, text);
  }
  get(at: StoredChunk, into: Uint8Array, length: number): void {
    this._files.get(at, into, length);
  }
  release(at: StoredChunk): void {
    this._files.release(at);
  }
  remove(): void {
    this._files.remove();
  }
}

describe('Transcript on a full disk', () => {
  it('holds unstored chunks in memory up to a bound, then drops the oldest lines and says why', () => {
    const files = TranscriptFiles.create(root, 't4', 1024 * 1024);
    const store = new FillingStore(files);
    const t = new Transcript(1 << 30, store);
    let n = 0;
    const add = (count: number) => {
      for (let k = 0; k < count; k++) t.appendText(lineOf(++n));
    };
    add(20_000);
    store.full = true;
    add(20_000);
    // Nothing lost yet: the chunks the disk refused wait in memory.
    assert.equal(t.dropped, 0);
    assert.match(t.storeError ?? '', /ENOSPC/);
    assert.deepEqual(t.read(19_999, 3, ALL).lines, [
      lineOf(20_000),
      lineOf(20_001),
      lineOf(20_002),
    ]);
    // The disk has room again: they are written, oldest first, and memory is given back.
    store.full = false;
    add(20_000);
    assert.equal(t.dropped, 0);
    assert.ok(t.allocatedBytes < 4 * CHUNK_BYTES + 64 * 1024, `memory: ${t.allocatedBytes}`);
    assert.equal(t.read(0, ALL, ALL).lines.length, 60_000);
    // Full for good: memory stays bounded, the oldest lines go and the newest stay.
    store.full = true;
    add(200_000);
    assert.ok(t.allocatedBytes <= MAX_UNSTORED_BYTES + 4 * CHUNK_BYTES + 64 * 1024);
    assert.ok(t.dropped > 60_000, `dropped ${t.dropped}`);
    // What memory may hold is kept: 4 MiB of lines of about 95 bytes.
    assert.ok(t.total - t.dropped > 30_000, `kept ${t.total - t.dropped}`);
    const kept = t.read(0, ALL, ALL);
    assert.equal(kept.missedLines, t.dropped);
    assert.equal(kept.lines.at(-1), lineOf(n));
    assert.equal(kept.lines[0], lineOf(t.dropped + 1));
    assert.equal(files.diskBytes, 0, 'the files of dropped lines are deleted');
    t.clear();
    assert.equal(existsSync(files.dir), false);
  });
});

describe('where transcripts go by default', () => {
  const TMPFS = 0x01021994;
  const EXT4 = 0xef53;
  const places = (types: Record<string, number | undefined>, writable = true) => ({
    tmp: '/tmp',
    platform: 'linux' as const,
    fsType: (dir: string) => types[dir],
    isWritableDir: () => writable,
  });

  it('is the temporary directory when it is on disk', () => {
    assert.equal(defaultTranscriptDir(places({ '/tmp': EXT4, '/var/tmp': EXT4 })), '/tmp');
  });

  it('is /var/tmp when the temporary directory is in memory (tmpfs) and /var/tmp is not', () => {
    assert.equal(defaultTranscriptDir(places({ '/tmp': TMPFS, '/var/tmp': EXT4 })), '/var/tmp');
  });

  it('stays in the temporary directory when /var/tmp is in memory too, missing or not writable', () => {
    assert.equal(defaultTranscriptDir(places({ '/tmp': TMPFS, '/var/tmp': TMPFS })), '/tmp');
    assert.equal(defaultTranscriptDir(places({ '/tmp': TMPFS })), '/tmp');
    assert.equal(defaultTranscriptDir(places({ '/tmp': TMPFS, '/var/tmp': EXT4 }, false)), '/tmp');
    assert.equal(
      defaultTranscriptDir({ ...places({ '/tmp': TMPFS, '/var/tmp': EXT4 }), platform: 'darwin' }),
      '/tmp',
    );
  });

  it('tells a real tmpfs from a disk', {
    skip:
      process.platform === 'linux' && process.getuid?.() === 0
        ? false
        : 'mounts a tmpfs: root on Linux',
  }, () => {
    const mount = mkdtempSync(join(root, 'tmpfs-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mount]);
    } catch {
      return; // no mount here (a container without the capability): nothing to tell
    }
    try {
      const system = { tmp: mount, platform: process.platform };
      const chosen = defaultTranscriptDir({
        ...system,
        fsType: (dir) => {
          try {
            return statfsType(dir);
          } catch {
            return undefined;
          }
        },
        isWritableDir: () => true,
      });
      const varTmpInMemory = statfsType('/var/tmp') === TMPFS;
      assert.equal(chosen, varTmpInMemory ? mount : '/var/tmp');
      assert.equal(
        defaultTranscriptDir({
          ...system,
          fsType: statfsType,
          isWritableDir: () => true,
          tmp: root,
        }),
        root,
      );
    } finally {
      execFileSync('umount', [mount]);
    }
  });
});

function statfsType(dir: string): number {
  return statfsSync(dir).type;
}
