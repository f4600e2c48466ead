/**
 * spec/keys.md and the encoder stay in step: every cell of the "Examples across protocols" table
 * is checked against encodeKey for its column's modes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { encodeKey, type KeyModes, LEGACY_MODES } from '../../../src/input/encode-key.js';
import type { KeyPress } from '../../../src/input/keys.js';
import { ROOT } from '../../helpers/paths.js';

const COLUMN_MODES: Record<string, KeyModes> = {
  legacy: LEGACY_MODES,
  'DECCKM + DECKPAM': { ...LEGACY_MODES, applicationCursorKeys: true, applicationKeypad: true },
  'modifyOtherKeys 1': { ...LEGACY_MODES, modifyOtherKeys: 1 },
  'modifyOtherKeys 2': { ...LEGACY_MODES, modifyOtherKeys: 2 },
};

function modesFor(column: string): KeyModes {
  const kitty = /^kitty (\d+)$/.exec(column);
  if (kitty) return { ...LEGACY_MODES, kittyKeyboardFlags: Number(kitty[1]) };
  const modes = COLUMN_MODES[column];
  assert.ok(modes, `unknown column "${column}"`);
  return modes;
}

/** `ESC [ 1 ; 5 A` → the bytes, per the document's notation. */
function parseBytes(cell: string): string {
  return cell
    .replace(/`/g, '')
    .trim()
    .split(/\s+/)
    .map((token) => {
      if (token === 'ESC') return '\x1b';
      if (token === 'SP') return ' ';
      if (/^0x[0-9a-f]{2}$/i.test(token)) return String.fromCharCode(Number.parseInt(token, 16));
      return token;
    })
    .join('');
}

function parseKey(label: string): KeyPress {
  const name = label.replace(/`/g, '').split(',')[0]?.trim() ?? '';
  const parts = name.split('+');
  const key = parts.pop() as string;
  return {
    key: key === '' ? '+' : key,
    ctrl: parts.includes('Ctrl'),
    alt: parts.includes('Alt'),
    shift: parts.includes('Shift'),
  };
}

describe('spec/keys.md examples table', () => {
  const text = readFileSync(join(ROOT, 'spec', 'keys.md'), 'utf8');
  const start = text.indexOf('### Examples across protocols');
  const section = text.slice(start, text.indexOf('\n## ', start));
  const rows = section
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  const [header, , ...body] = rows;

  it('has the table', () => {
    assert.ok(header && header.length > 4 && body.length > 10);
  });

  for (const row of body) {
    const [label, ...cells] = row;
    it(`${label}`, () => {
      const press = parseKey(label ?? '');
      cells.forEach((cell, i) => {
        const column = header?.[i + 1] as string;
        const result = encodeKey(press, modesFor(column));
        if (cell === '✗') {
          assert.equal(result.ok, false, `${label} in ${column} is refused`);
        } else {
          assert.deepEqual(result, { ok: true, bytes: parseBytes(cell) }, `${label} in ${column}`);
        }
      });
    });
  }
});
