/**
 * The state machine of the emulator's escape-sequence parser (the DEC ANSI parser that
 * @xterm/headless implements, with its choices for C1 controls and non-ASCII code points), kept
 * outside the emulator so the output filter knows, code point by code point, what the emulator
 * does with it. State numbers are the emulator's own. Pure.
 * @see https://vt100.net/emu/dec_ansi_parser
 */

export const GROUND = 0;
export const ESCAPE = 1;
const ESCAPE_INTERMEDIATE = 2;
const CSI_ENTRY = 3;
const CSI_PARAM = 4;
const CSI_INTERMEDIATE = 5;
const CSI_IGNORE = 6;
const SOS_PM_APC_STRING = 7;
const OSC_STRING = 8;
const DCS_ENTRY = 9;
const DCS_PARAM = 10;
const DCS_IGNORE = 11;
const DCS_INTERMEDIATE = 12;
const DCS_PASSTHROUGH = 13;

export type ParserState = number;

/**
 * What a code point does besides moving the parser to its next state: nothing of note (collected,
 * ignored, string payload), printed into a cell (GROUND), a break (executed, dispatched, a string
 * ended, or an error: ends the run of characters that join into one cell), or opens an OSC, DCS,
 * SOS, PM or APC string.
 */
export const NONE = 0;
export const PRINT = 1;
export const BREAK = 2;
export const OPEN = 3;
export type StepKind = typeof NONE | typeof PRINT | typeof BREAK | typeof OPEN;

/** A step packed as state << 2 | kind, as `transition` returns it. */
type Step = number;

function step(state: ParserState, kind: 'none' | 'print' | 'break' | 'open'): Step {
  const code = { none: NONE, print: PRINT, break: BREAK, open: OPEN }[kind];
  return (state << 2) | code;
}

/** Whether the parser is inside a string (OSC, DCS with its parameters, SOS, PM, APC). */
export function isInString(state: ParserState): boolean {
  return state >= SOS_PM_APC_STRING;
}

/** C0 controls the parser executes in place (not CAN 0x18, SUB 0x1a or ESC 0x1b). */
function isExecutable(c: number): boolean {
  return c <= 0x17 || c === 0x19 || (c >= 0x1c && c <= 0x1f);
}

/** Rules that apply in every state unless the state says otherwise. */
function anywhere(c: number): Step | undefined {
  if (c === 0x18 || c === 0x1a) return step(GROUND, 'break');
  if (c === 0x1b) return step(ESCAPE, 'none');
  if (c < 0x80 || c > 0x9f) return undefined;
  if (c === 0x90) return step(DCS_ENTRY, 'open');
  if (c === 0x9b) return step(CSI_ENTRY, 'none');
  if (c === 0x9c) return step(GROUND, 'none');
  if (c === 0x9d) return step(OSC_STRING, 'open');
  if (c === 0x98 || c === 0x9e || c === 0x9f) return step(SOS_PM_APC_STRING, 'open');
  return step(GROUND, 'break');
}

function escapeStep(c: number): Step {
  if (c <= 0x2f) return step(ESCAPE_INTERMEDIATE, 'none');
  if (c === 0x5d) return step(OSC_STRING, 'open');
  if (c === 0x50) return step(DCS_ENTRY, 'open');
  if (c === 0x58 || c === 0x5e || c === 0x5f) return step(SOS_PM_APC_STRING, 'open');
  if (c === 0x5b) return step(CSI_ENTRY, 'none');
  return step(GROUND, 'break');
}

/** CSI and DCS share their parameter grammar (DCS then passes its data, CSI dispatches). */
function sequenceHeader(state: ParserState, c: number, isDcs: boolean): Step {
  const entry = isDcs ? DCS_ENTRY : CSI_ENTRY;
  const param = isDcs ? DCS_PARAM : CSI_PARAM;
  const intermediate = isDcs ? DCS_INTERMEDIATE : CSI_INTERMEDIATE;
  const ignore = isDcs ? DCS_IGNORE : CSI_IGNORE;
  const final = isDcs ? step(DCS_PASSTHROUGH, 'none') : step(GROUND, 'break');
  if (c >= 0x40) return final;
  if (c <= 0x2f) return step(intermediate, 'none');
  if (state === intermediate) return step(ignore, 'none');
  if (c <= 0x3b || state === entry) return step(param, 'none');
  return step(ignore, 'none');
}

/**
 * The parser's step on `c` (a code point, U+00A0 standing for every one from there up) in
 * `state`. DEL and the ASCII of a state that does not take them are errors back to GROUND.
 */
function computeStep(state: ParserState, c: number): Step {
  if (state === OSC_STRING && (c === 0x07 || c === 0x18 || c === 0x1a || c === 0x9c)) {
    return step(GROUND, 'break');
  }
  if ((state === OSC_STRING || state === DCS_PASSTHROUGH) && c === 0x1b) {
    return step(ESCAPE, 'break');
  }
  if (state === DCS_PASSTHROUGH && c === 0x9c) return step(GROUND, 'break');
  const any = anywhere(c);
  if (any !== undefined) return any;
  if (isExecutable(c)) {
    return step(state, state < SOS_PM_APC_STRING ? 'break' : 'none');
  }
  switch (state) {
    case GROUND:
      return c === 0x7f ? step(GROUND, 'break') : step(GROUND, 'print');
    case ESCAPE:
      return c === 0x7f ? step(ESCAPE, 'none') : c === 0xa0 ? step(GROUND, 'break') : escapeStep(c);
    case ESCAPE_INTERMEDIATE:
      if (c === 0x7f) return step(state, 'none');
      if (c === 0xa0) return step(GROUND, 'break');
      return c <= 0x2f ? step(state, 'none') : step(GROUND, 'break');
    case CSI_IGNORE:
      return c >= 0x40 && c <= 0x7e ? step(GROUND, 'none') : step(state, 'none');
    case DCS_IGNORE:
      return step(state, 'none');
    case OSC_STRING:
    case DCS_PASSTHROUGH:
      return step(state, 'none');
    case SOS_PM_APC_STRING:
      return c === 0xa0 ? step(GROUND, 'break') : step(state, 'none');
    default: {
      if (c === 0x7f) return step(state, 'none');
      if (c === 0xa0) return step(GROUND, 'break');
      const isDcs = state >= DCS_ENTRY;
      return sequenceHeader(state, c, isDcs);
    }
  }
}

const CLASSES = 0xa1;
const STATES = DCS_PASSTHROUGH + 1;
const TABLE = new Uint8Array(STATES * CLASSES);
for (let state = 0; state < STATES; state++) {
  for (let c = 0; c < CLASSES; c++) TABLE[state * CLASSES + c] = computeStep(state, c);
}

/** The parser's step on code point `cp` in `state`, packed: next state << 2 | StepKind. */
export function transition(state: ParserState, cp: number): number {
  return TABLE[state * CLASSES + Math.min(cp, 0xa0)] as number;
}
