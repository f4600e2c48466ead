/**
 * Reading a transcript's kept lines in pages: the lines after a line, up to an end line, at most
 * so many lines and bytes, as strings or as one copy of their UTF-8 bytes. Which lines are kept
 * is transcript.ts's; where a chunk is read from, chunk-store.ts's. Pure but for that read.
 * @see ../../spec/guarantees.md (Transcript)
 */
import { type Chunk, type ChunkView, locateLine } from './transcript-chunk.js';

/** The kept lines as a transcript holds them. */
export interface KeptLines {
  /** In line order; they hold lines dropped + 1 .. total (the first may hold dropped ones too). */
  readonly chunks: readonly Chunk[];
  /** Lines 1..dropped are gone. */
  readonly dropped: number;
  /** The number of the last line. */
  readonly total: number;
  /** A chunk's text and index, wherever it is kept. */
  view(chunk: Chunk): ChunkView;
}

/** Lines read from a transcript: those after line `since`, up to an end line. */
export interface TranscriptSlice {
  /** The line the slice starts after: the `since` asked for, or later when lines were dropped. */
  readonly since: number;
  /** Oldest first; lines[i] is line since + 1 + i. */
  readonly lines: string[];
  /** Lines after the `since` asked for that were dropped for the bound before they were read. */
  readonly missedLines: number;
}

/** Lines read as bytes: line since + 1 + i is utf8[ends[i - 1] ?? 0, ends[i]). */
export interface EncodedSlice {
  readonly since: number;
  readonly utf8: Uint8Array;
  readonly ends: Uint32Array;
  readonly missedLines: number;
}

/**
 * The kept lines after line `since` up to line `end`, at most `maxLines` and, past the first
 * line, at most `maxBytes` of text.
 */
export function readLines(
  kept: KeptLines,
  since: number,
  maxLines: number,
  maxBytes: number,
  end: number,
): TranscriptSlice {
  const last = Math.max(0, Math.min(end, kept.total));
  const start = Math.min(Math.max(since, kept.dropped), last);
  const lines: string[] = [];
  let bytes = 0;
  let n = start + 1;
  read: while (n <= last && lines.length < maxLines) {
    const [chunk, first] = locateLine(kept.chunks, n);
    const view = kept.view(chunk);
    for (let i = first; i < chunk.count && n <= last && lines.length < maxLines; i++, n++) {
      const from = i === 0 ? 0 : (view.ends[i - 1] as number);
      const to = view.ends[i] as number;
      if (lines.length > 0 && bytes + (to - from) > maxBytes) break read;
      bytes += to - from;
      lines.push(view.bytes.toString('utf8', from, to));
    }
  }
  const missedLines = Math.max(0, Math.min(kept.dropped, last) - since);
  return { since: start, lines, missedLines };
}

/**
 * As readLines, but the lines as one copy of their UTF-8 bytes and their end offsets in it, for
 * a search that decodes them elsewhere: no string per line is built here.
 */
export function readLineBytes(
  kept: KeptLines,
  since: number,
  maxLines: number,
  maxBytes: number,
  end: number,
): EncodedSlice {
  const last = Math.max(0, Math.min(end, kept.total));
  const start = Math.min(Math.max(since, kept.dropped), last);
  const parts: Uint8Array[] = [];
  const ends: number[] = [];
  let bytes = 0;
  let n = start;
  // One copy per chunk the lines span.
  while (n < last && n - start < maxLines) {
    const [chunk, first] = locateLine(kept.chunks, n + 1);
    const view = kept.view(chunk);
    const base = first === 0 ? 0 : (view.ends[first - 1] as number);
    let i = first;
    for (; i < chunk.count && n < last && n - start < maxLines; i++) {
      const size = (view.ends[i] as number) - (i === 0 ? 0 : (view.ends[i - 1] as number));
      if (n > start && bytes + size > maxBytes) break;
      bytes += size;
      ends.push(bytes);
      n++;
    }
    const to = i === 0 ? 0 : (view.ends[i - 1] as number);
    if (i > first) parts.push(Uint8Array.prototype.slice.call(view.bytes, base, to));
    if (i < chunk.count && n < last && n - start < maxLines) break;
  }
  const utf8 = parts.length === 1 ? (parts[0] as Uint8Array) : concat(parts, bytes);
  const missedLines = Math.max(0, Math.min(kept.dropped, last) - since);
  return { since: start, utf8, ends: Uint32Array.from(ends), missedLines };
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
