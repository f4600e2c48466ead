/**
 * Where a session's transcript keeps its full chunks: files in a private directory (0700, from
 * mkdtemp; each file 0600) under the transcript directory, the system's temporary directory
 * unless configured. Chunks are appended to numbered segment files; a segment is deleted once
 * every chunk in it has been dropped, so the files hold at most the transcript's bound plus one
 * segment. The session removes the directory when it closes; a server killed outright leaves it
 * to the next server's sweep (private-dirs.ts). Reads and writes are synchronous: a chunk is at
 * most 96 KiB, and the page cache takes it at once. A chunk read back is checked against its
 * length and CRC-32: a file cut short or changed by another program is an error, never wrong lines.
 * @see spec/guarantees.md (Transcript)
 */
import {
  accessSync,
  closeSync,
  constants,
  mkdtempSync,
  readSync,
  rmSync,
  statfsSync,
  statSync,
  unlinkSync,
  writevSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import type { ChunkStore } from '../screen/chunk-store.js';
import type { StoredChunk } from '../screen/transcript-chunk.js';
import { createPrivateFile } from '../shared/private-files.js';
import { markPrivateDir } from './private-dirs.js';

/** statfs's type of a memory file system (tmpfs), on Linux. */
const TMPFS_MAGIC = 0x01021994;
/** Where temporary files that survive a reboot go, on disk (FHS). */
const DISK_TEMP = '/var/tmp';

export interface TempPlaces {
  readonly tmp: string;
  readonly platform: NodeJS.Platform;
  /** statfs's file-system type of a directory; undefined when it cannot be read. */
  readonly fsType: (dir: string) => number | undefined;
  /** Whether `dir` is a directory this user may create files in. */
  readonly isWritableDir: (dir: string) => boolean;
}

/** This system's places, the temporary directory as it is now ($TMPDIR may change). */
const systemPlaces = (): TempPlaces => ({
  tmp: tmpdir(),
  platform: process.platform,
  fsType: (dir) => {
    try {
      return statfsSync(dir).type;
    } catch {
      return undefined;
    }
  },
  isWritableDir: (dir) => {
    try {
      accessSync(dir, constants.W_OK | constants.X_OK);
      return statSync(dir).isDirectory();
    } catch {
      return false;
    }
  },
});

/**
 * Where transcripts go unless configured: the system's temporary directory, or /var/tmp where
 * that directory is a memory file system (tmpfs) and /var/tmp is not, so that transcripts take
 * disk, not memory.
 */
export function defaultTranscriptDir(places: TempPlaces = systemPlaces()): string {
  const { tmp, platform, fsType, isWritableDir } = places;
  if (platform !== 'linux' || fsType(tmp) !== TMPFS_MAGIC) return tmp;
  const disk = fsType(DISK_TEMP);
  return disk !== undefined && disk !== TMPFS_MAGIC && isWritableDir(DISK_TEMP) ? DISK_TEMP : tmp;
}

/** The name every transcript directory starts with (the sweep looks for it). */
export const TRANSCRIPT_DIR_PREFIX = 'agent-tty-transcript-';
const MIN_SEGMENT_BYTES = 1024 * 1024;
const MAX_SEGMENT_BYTES = 64 * 1024 * 1024;

/** Segment size for a transcript bound: a sixteenth of it, from 1 MiB to 64 MiB. */
export function segmentBytesFor(limitBytes: number): number {
  return Math.min(MAX_SEGMENT_BYTES, Math.max(MIN_SEGMENT_BYTES, Math.ceil(limitBytes / 16)));
}

/** zlib's CRC-32 (Node 20.15 and newer; on older ones a chunk read back is checked for its length only). */
const crc32 = typeof zlib.crc32 === 'function' ? zlib.crc32 : undefined;

/** A chunk in a segment file, with the CRC-32 of its index and of index and text together. */
interface FileChunk extends StoredChunk {
  readonly indexLength: number;
  readonly indexCrc: number | undefined;
  readonly crc: number | undefined;
}

interface Segment {
  readonly fd: number;
  readonly path: string;
  /** Chunks stored in it and not yet released. */
  refs: number;
  size: number;
}

export class TranscriptFiles implements ChunkStore {
  private readonly _segments = new Map<number, Segment>();
  private _current = 0;
  private _removed = false;

  private constructor(
    readonly dir: string,
    private readonly _segmentBytes: number,
  ) {}

  /** Makes the private directory for session `sessionId` under `root`; throws when it cannot. */
  static create(root: string, sessionId: string, segmentBytes: number): TranscriptFiles {
    const dir = mkdtempSync(join(root, `${TRANSCRIPT_DIR_PREFIX}${sessionId}-`));
    markPrivateDir(dir);
    return new TranscriptFiles(dir, segmentBytes);
  }

  /** Bytes in the segment files now. */
  get diskBytes(): number {
    let sum = 0;
    for (const segment of this._segments.values()) sum += segment.size;
    return sum;
  }

  put(index: Uint8Array, text: Uint8Array): StoredChunk {
    if (this._removed) throw new Error('the transcript files were removed');
    const length = index.byteLength + text.byteLength;
    let segment = this._segments.get(this._current);
    if (segment && segment.size > 0 && segment.size + length > this._segmentBytes) {
      this._retire(this._current, segment);
      this._current++;
      segment = undefined;
    }
    segment ??= this._open(this._current);
    writeAll(segment.fd, [index, text], segment.size);
    const indexCrc = crc32?.(index);
    const at: FileChunk = {
      segment: this._current,
      offset: segment.size,
      length,
      indexLength: index.byteLength,
      indexCrc,
      crc: crc32?.(text, indexCrc),
    };
    segment.size += length;
    segment.refs++;
    return at;
  }

  /**
   * Reads what put() stored, or throws: the segment file was cut short (ETRUNCATED), its bytes
   * differ from those written (EBADCRC), or the system's read failed (EIO…).
   */
  get(at: StoredChunk, into: Uint8Array, length: number): void {
    const segment = this._segments.get(at.segment);
    if (!segment) throw fileError('ENOENT', `transcript segment ${at.segment} is gone`);
    let done = 0;
    while (done < length) {
      const n = readSync(segment.fd, into, done, length - done, at.offset + done);
      if (n === 0) {
        throw fileError(
          'ETRUNCATED',
          `${segment.path} is truncated: ${done} of ${length} bytes at offset ${at.offset}`,
        );
      }
      done += n;
    }
    const { crc, indexCrc, indexLength } = at as Partial<FileChunk>;
    const expected = length === at.length ? crc : length === indexLength ? indexCrc : undefined;
    if (expected !== undefined && crc32?.(into.subarray(0, length)) !== expected) {
      throw fileError(
        'EBADCRC',
        `${segment.path} was changed: its ${length} bytes at offset ${at.offset} are not those written`,
      );
    }
  }

  release(at: StoredChunk): void {
    const segment = this._segments.get(at.segment);
    if (!segment) return;
    segment.refs--;
    // The segment being written to goes too: the next chunk starts it afresh.
    if (segment.refs <= 0) this._delete(at.segment, segment);
  }

  remove(): void {
    if (this._removed) return;
    this._removed = true;
    for (const segment of this._segments.values()) closeQuietly(segment.fd);
    this._segments.clear();
    try {
      rmSync(this.dir, { recursive: true, force: true });
    } catch {
      // Already gone, or not ours to remove any more.
    }
  }

  private _open(n: number): Segment {
    const path = join(this.dir, `segment-${n}`);
    const segment = { fd: createPrivateFile(path, true), path, refs: 0, size: 0 };
    this._segments.set(n, segment);
    return segment;
  }

  /** A segment no longer written to goes as soon as nothing in it is kept. */
  private _retire(n: number, segment: Segment): void {
    if (segment.refs <= 0) this._delete(n, segment);
  }

  private _delete(n: number, segment: Segment): void {
    this._segments.delete(n);
    closeQuietly(segment.fd);
    try {
      unlinkSync(segment.path);
    } catch {
      // Gone already: the room is given back either way.
    }
  }
}

/**
 * Writes `pieces` at `position`, to the end. A short write is retried with the rest, so that the
 * system names why it stopped: ENOSPC (the disk is full), EFBIG (the file-size limit), EDQUOT.
 */
function writeAll(fd: number, pieces: readonly Uint8Array[], position: number): void {
  let rest = pieces.filter((p) => p.byteLength > 0);
  while (rest.length > 0) {
    const n = writevSync(fd, rest, position);
    if (n === 0) throw fileError('EIO', 'the transcript file took no bytes of a write');
    position += n;
    rest = dropBytes(rest, n);
  }
}

/** `pieces` without their first `count` bytes. */
function dropBytes(pieces: readonly Uint8Array[], count: number): Uint8Array[] {
  const rest: Uint8Array[] = [];
  for (const piece of pieces) {
    if (count >= piece.byteLength) {
      count -= piece.byteLength;
      continue;
    }
    rest.push(count > 0 ? piece.subarray(count) : piece);
    count = 0;
  }
  return rest;
}

/** An error of the transcript's files, with a code as the system's errors have: "CODE: message". */
function fileError(code: string, message: string): Error {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Closed already.
  }
}

/** Most a transcript keeps in memory when its files cannot be made (the old in-memory default). */
export const MEMORY_FALLBACK_BYTES = 32 * 1024 * 1024;

export interface TranscriptPlace {
  readonly store?: TranscriptFiles;
  readonly limitBytes: number;
  /** Why the transcript is in memory, when it is. */
  readonly error?: string;
}

/**
 * Files for session `sessionId`'s transcript under `root`; when they cannot be made (no room, no
 * permission) the transcript is kept in memory instead, at most MEMORY_FALLBACK_BYTES, and says why.
 */
export function placeTranscript(
  root: string,
  sessionId: string,
  limitBytes: number,
): TranscriptPlace {
  if (limitBytes === 0) return { limitBytes };
  try {
    return {
      store: TranscriptFiles.create(root, sessionId, segmentBytesFor(limitBytes)),
      limitBytes,
    };
  } catch (err) {
    return {
      limitBytes: Math.min(limitBytes, MEMORY_FALLBACK_BYTES),
      error: `the transcript is kept in memory, at most ${MEMORY_FALLBACK_BYTES / 1024 / 1024} MiB: its directory could not be made in ${root} (${(err as Error).message})`,
    };
  }
}
