/**
 * The output filter's fast path: a run of ASCII outside strings (text, controls, escape and
 * control sequences: what most output is) stepped through the parser state as the emulator steps
 * it, without decoding, with text between escapes found by a native search. Stops before a byte
 * that opens a string or is not ASCII. output-filter.ts takes it from there. Pure.
 */
import { BREAK, GROUND, isInString, OPEN, type ParserState, transition } from './parser-state.js';

/** REP (CSI Ps b): repeats the cell before it. */
export const REP_FINAL = 0x62;

/** Where a run stopped and what it left; filled in by scanAsciiRun. */
export interface AsciiRun {
  /** The first byte not passed. */
  end: number;
  /** The parser state after the run. */
  state: ParserState;
  /** Width of the cell zero-width characters would join after the run: 1, or 0 for none. */
  joinWidth: number;
  /** Whether the run printed a character (which takes a cell of one unit). */
  hasPrinted: boolean;
  /** Whether a REP in the run repeats the cell from before it. */
  repeatsCell: boolean;
}

/** A run to fill in, one per filter. */
export function newAsciiRun(): AsciiRun {
  return { end: 0, state: GROUND, joinWidth: 0, hasPrinted: false, repeatsCell: false };
}

/**
 * Passes the ASCII of `data` from `start` up to `stop` at most, from parser state `state` with
 * `joinWidth` the width of the cell marks would join, into `run`. `buffer` is `data` as a Buffer
 * (for a native search); `isAllAscii`: whether all of `data` is ASCII, so that text between
 * escapes needs no byte-by-byte look.
 */
export function scanAsciiRun(
  data: Uint8Array,
  buffer: Buffer,
  isAllAscii: boolean,
  start: number,
  stop: number,
  state: ParserState,
  joinWidth: number,
  run: AsciiRun,
): AsciiRun {
  let hasPrinted = false;
  let repeatsCell = false;
  let i = start;
  while (i < stop) {
    if (state === GROUND && isAllAscii) {
      // Up to the next ESC every byte keeps the parser in GROUND, and only the last printable
      // character and what follows it matter. A short run is looked through here (the
      // native search costs a call), a longer one searched.
      const near = Math.min(stop, i + 32);
      let end = i;
      while (end < near && data[end] !== 0x1b) end++;
      if (end === near && end < stop) {
        // Searched up to `stop` only: a push may hold many pieces' worth without an ESC.
        const esc = buffer.subarray(end, stop).indexOf(0x1b);
        end = esc < 0 ? stop : end + esc;
      }
      if (end > i) {
        let k = end - 1;
        while (k > i && !isPrintable(data[k] as number)) k--;
        if (isPrintable(data[k] as number)) {
          hasPrinted = true;
          joinWidth = k === end - 1 ? 1 : 0;
        } else joinWidth = 0;
        i = end;
        if (i === stop) break;
      }
    }
    if (state === GROUND && isPrintable(data[i] as number)) {
      // Printable ASCII takes a cell of its own: zero-width characters would join it.
      hasPrinted = true;
      joinWidth = 1;
      i++;
      while (i < stop && isPrintable(data[i] as number)) i++;
      if (i === stop) break;
    }
    const byte = data[i] as number;
    if (byte >= 0x80) break;
    const step = transition(state, byte);
    const next = step >> 2;
    const kind = step & 3;
    if (kind === OPEN || isInString(next)) break;
    if (kind === BREAK) {
      // REP repeats the cell before it (one unit when this run printed it).
      if (byte === REP_FINAL && state !== GROUND && !hasPrinted) repeatsCell = true;
      joinWidth = 0;
    }
    state = next;
    i++;
  }
  run.end = i;
  run.state = state;
  run.joinWidth = joinWidth;
  run.hasPrinted = hasPrinted;
  run.repeatsCell = repeatsCell;
  return run;
}

function isPrintable(byte: number): boolean {
  return byte >= 0x20 && byte < 0x7f;
}
