/**
 * The matching itself: every match of one regular expression in a list of texts, in order, up to
 * a limit. Runs inside the match worker (match-pool.ts sends its source text there), so
 * searchTexts must stay self-contained: no imports, no references outside its own body.
 */

/** Lines as UTF-8 bytes: line i is utf8[ends[i - 1] ?? 0, ends[i]) (a transcript's, copied). */
export interface EncodedLines {
  readonly utf8: Uint8Array;
  readonly ends: Uint32Array;
}

export interface SearchRequest {
  readonly source: string;
  readonly flags: string;
  /** The texts, or lines as bytes, decoded in the worker so the main thread builds no strings. */
  readonly texts: readonly string[] | EncodedLines;
  /** Stop after this many matches (1: the first match only). */
  readonly limit: number;
  /** Report empty matches too (a wait on `^` matches at once); a search for text skips them. */
  readonly withEmpty: boolean;
}

/** One match: which text, where in it (UTF-16 index), and the matched text. */
export interface TextHit {
  readonly textIndex: number;
  readonly index: number;
  readonly text: string;
}

/** Every match of the request's pattern in its texts, in order (none spans two texts). */
export function searchTexts(request: SearchRequest): TextHit[] {
  const re = new RegExp(request.source, request.flags);
  const hits: TextHit[] = [];
  const source = request.texts;
  let texts: readonly string[];
  if (Array.isArray(source)) {
    texts = source;
  } else {
    const { utf8, ends } = source as EncodedLines;
    const decoder = new TextDecoder();
    const decoded: string[] = [];
    for (let i = 0, from = 0; i < ends.length; from = ends[i++] as number) {
      decoded.push(decoder.decode(utf8.subarray(from, ends[i])));
    }
    texts = decoded;
  }
  for (let t = 0; t < texts.length && hits.length < request.limit; t++) {
    const text = texts[t] as string;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null && hits.length < request.limit; m = re.exec(text)) {
      if (m[0].length > 0 || request.withEmpty)
        hits.push({ textIndex: t, index: m.index, text: m[0] });
      if (m[0].length === 0) {
        // An empty match would repeat forever; step over it (a whole code point under u).
        const code = text.codePointAt(re.lastIndex) ?? 0;
        re.lastIndex += code > 0xffff ? 2 : 1;
      }
    }
  }
  return hits;
}
