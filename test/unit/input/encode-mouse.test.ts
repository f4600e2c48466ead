// encodeMouse rows: report + tracking + encoding → exact bytes or a refusal code, per xterm's
// ctlseqs (Mouse Tracking): Cb = button | Shift 4 | Alt 8 | Ctrl 16, wheel 64-67, legacy release 3.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeMouse, type MouseModes, type MouseReport } from '../../../src/input/encode-mouse.js';
import type { MouseEncoding, MouseTracking } from '../../../src/shared/modes.js';

const at = (row: number, column: number) => ({ row, column });
const base: MouseReport = {
  kind: 'press',
  button: 'left',
  direction: 'up',
  row: 5,
  column: 10,
  ctrl: false,
  alt: false,
  shift: false,
};
const report = (over: Partial<MouseReport>): MouseReport => ({ ...base, ...over });
const modes = (mouseTracking: MouseTracking, mouseEncoding: MouseEncoding): MouseModes => ({
  mouseTracking,
  mouseEncoding,
});

/** The bytes of each encoding for button code `cb` at (row, column). */
function expected(encoding: MouseEncoding, cb: number, row: number, column: number, final = 'M') {
  switch (encoding) {
    case 'default':
      return Uint8Array.from([0x1b, 0x5b, 0x4d, 32 + cb, 32 + column, 32 + row]);
    case 'utf8':
      return Buffer.concat([
        Buffer.from('\x1b[M'),
        Buffer.from(String.fromCodePoint(32 + cb, 32 + column, 32 + row)),
      ]);
    case 'sgr':
      return Buffer.from(`\x1b[<${cb};${column};${row}${final}`, 'latin1');
    case 'urxvt':
      return Buffer.from(`\x1b[${32 + cb};${column};${row}M`, 'latin1');
    default:
      throw new Error(`no bytes for ${encoding}`);
  }
}

function assertBytes(r: MouseReport, m: MouseModes, want: Uint8Array): void {
  const result = encodeMouse(r, m);
  assert.ok(result.ok, `expected bytes, got ${JSON.stringify(result)}`);
  assert.deepEqual(Buffer.from(result.bytes), Buffer.from(want));
}

function assertRefused(r: MouseReport, m: MouseModes, code: string, reason: RegExp): void {
  const result = encodeMouse(r, m);
  assert.equal(result.ok, false);
  if (!result.ok) {
    assert.equal(result.code, code);
    assert.match(result.reason, reason);
  }
}

const ENCODINGS = ['default', 'utf8', 'sgr', 'urxvt'] as const;
const TRACKING = ['normal', 'button', 'any'] as const;

/** [report, button code, SGR final]: the same code in every tracking mode but X10. */
const REPORTS: readonly (readonly [string, Partial<MouseReport>, number, string])[] = [
  ['left press', {}, 0, 'M'],
  ['middle press', { button: 'middle' }, 1, 'M'],
  ['right press', { button: 'right' }, 2, 'M'],
  ['Shift+left press', { shift: true }, 4, 'M'],
  ['Alt+left press', { alt: true }, 8, 'M'],
  ['Ctrl+left press', { ctrl: true }, 16, 'M'],
  ['Ctrl+Alt+Shift+right press', { ctrl: true, alt: true, shift: true, button: 'right' }, 30, 'M'],
  ['wheel up', { kind: 'wheel', direction: 'up' }, 64, 'M'],
  ['wheel down', { kind: 'wheel', direction: 'down' }, 65, 'M'],
  ['wheel left', { kind: 'wheel', direction: 'left' }, 66, 'M'],
  ['wheel right', { kind: 'wheel', direction: 'right' }, 67, 'M'],
  ['Ctrl+wheel down', { kind: 'wheel', direction: 'down', ctrl: true }, 81, 'M'],
  ['Shift+wheel up', { kind: 'wheel', shift: true }, 68, 'M'],
];
/** Releases: SGR keeps the button and ends in m; the legacy forms send button code 3. */
const RELEASES: readonly (readonly [string, Partial<MouseReport>, number, number])[] = [
  ['left release', { kind: 'release' }, 0, 3],
  ['middle release', { kind: 'release', button: 'middle' }, 1, 3],
  ['right release', { kind: 'release', button: 'right' }, 2, 3],
  ['Shift+right release', { kind: 'release', button: 'right', shift: true }, 6, 7],
  ['Ctrl+Alt+middle release', { kind: 'release', button: 'middle', ctrl: true, alt: true }, 25, 27],
];

for (const tracking of TRACKING) {
  for (const encoding of ENCODINGS) {
    describe(`tracking ${tracking}, encoding ${encoding}`, () => {
      const m = modes(tracking, encoding);
      for (const [name, over, cb, final] of REPORTS) {
        it(`${name} → Cb ${cb}`, () =>
          assertBytes(report(over), m, expected(encoding, cb, 5, 10, final)));
      }
      for (const [name, over, sgrCb, legacyCb] of RELEASES) {
        const cb = encoding === 'sgr' ? sgrCb : legacyCb;
        it(`${name} → Cb ${cb}`, () =>
          assertBytes(report(over), m, expected(encoding, cb, 5, 10, 'm')));
      }
      it('click → press then release', () => {
        assertBytes(report({ button: 'right' }), m, expected(encoding, 2, 5, 10));
        const releaseCb = encoding === 'sgr' ? 2 : 3;
        assertBytes(
          report({ kind: 'release', button: 'right' }),
          m,
          expected(encoding, releaseCb, 5, 10, 'm'),
        );
      });
      it('top-left cell (1,1)', () =>
        assertBytes(report(at(1, 1)), m, expected(encoding, 0, 1, 1)));
    });
  }
}

describe('X10 tracking (mode 9): presses only, no modifiers', () => {
  for (const encoding of ENCODINGS) {
    const m = modes('x10', encoding);
    it(`${encoding}: left and right press`, () => {
      assertBytes(report({}), m, expected(encoding, 0, 5, 10));
      assertBytes(report({ button: 'right' }), m, expected(encoding, 2, 5, 10));
    });
    it(`${encoding}: release refused`, () =>
      assertRefused(
        report({ kind: 'release' }),
        m,
        'INVALID_ARGUMENT',
        /presses only, not releases/,
      ));
    it(`${encoding}: wheel refused`, () =>
      assertRefused(report({ kind: 'wheel' }), m, 'INVALID_ARGUMENT', /not the wheel/));
    for (const mod of ['ctrl', 'alt', 'shift'] as const) {
      it(`${encoding}: ${mod} refused`, () =>
        assertRefused(report({ [mod]: true }), m, 'INVALID_ARGUMENT', /does not report modifiers/));
    }
  }
});

describe('coordinate limits', () => {
  const cases: readonly (readonly [MouseEncoding, number, number])[] = [
    ['default', 223, 224],
    ['utf8', 2015, 2016],
  ];
  for (const [encoding, max, over] of cases) {
    it(`${encoding}: ${max} is the largest row and column`, () => {
      assertBytes(report(at(max, max)), modes('normal', encoding), expected(encoding, 0, max, max));
    });
    it(`${encoding}: column ${over} → OUT_OF_BOUNDS`, () =>
      assertRefused(
        report(at(1, over)),
        modes('any', encoding),
        'OUT_OF_BOUNDS',
        new RegExp(`up to ${max}`),
      ));
    it(`${encoding}: row ${over} → OUT_OF_BOUNDS`, () =>
      assertRefused(
        report(at(over, 1)),
        modes('button', encoding),
        'OUT_OF_BOUNDS',
        /SGR \(1006\)/,
      ));
  }
  it('default: column 223 is the byte 255', () => {
    const result = encodeMouse(report(at(1, 223)), modes('normal', 'default'));
    assert.ok(result.ok);
    assert.equal(result.bytes[4], 255);
  });
  it('utf8: column 100 is two UTF-8 bytes (U+0084)', () => {
    const result = encodeMouse(report(at(1, 100)), modes('normal', 'utf8'));
    assert.ok(result.ok);
    assert.deepEqual([...result.bytes], [0x1b, 0x5b, 0x4d, 32, 0xc2, 0x84, 33]);
  });
  for (const encoding of ['sgr', 'urxvt'] as const) {
    it(`${encoding}: no limit (row 5000, column 3000)`, () =>
      assertBytes(
        report(at(5000, 3000)),
        modes('normal', encoding),
        expected(encoding, 0, 5000, 3000),
      ));
  }
});

describe('refusals', () => {
  for (const encoding of [...ENCODINGS, 'sgr-pixels'] as const) {
    it(`tracking none (${encoding}) → MOUSE_NOT_ENABLED`, () =>
      assertRefused(
        report({}),
        modes('none', encoding),
        'MOUSE_NOT_ENABLED',
        /has not enabled mouse reporting/,
      ));
  }
  for (const tracking of ['x10', ...TRACKING] as const) {
    it(`sgr-pixels (${tracking}) → INVALID_ARGUMENT`, () =>
      assertRefused(
        report({}),
        modes(tracking, 'sgr-pixels'),
        'INVALID_ARGUMENT',
        /pixel coordinates \(mode 1016\)/,
      ));
  }
});
