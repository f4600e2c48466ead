import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_TITLE_LENGTH, safeTitle } from '../../../src/screen/title.js';

describe('safeTitle', () => {
  it('keeps a short printable title as it is', () => {
    assert.equal(safeTitle(''), '');
    assert.equal(safeTitle('vim — notes.md'), 'vim — notes.md');
  });

  it('keeps a title of exactly the longest length whole', () => {
    const title = 'x'.repeat(MAX_TITLE_LENGTH);
    assert.equal(safeTitle(title), title);
  });

  it('cuts a longer title to the longest length, ending with an ellipsis', () => {
    const shown = safeTitle('y'.repeat(MAX_TITLE_LENGTH + 1));
    assert.equal(shown.length, MAX_TITLE_LENGTH);
    assert.equal(shown, `${'y'.repeat(MAX_TITLE_LENGTH - 1)}…`);
  });

  it('bounds a huge title the same way', () => {
    const shown = safeTitle('z'.repeat(1_000_000));
    assert.equal(shown, `${'z'.repeat(MAX_TITLE_LENGTH - 1)}…`);
  });

  it('shows control characters as stand-ins, never as they are', () => {
    assert.equal(
      safeTitle('a\x1bb\x07c\nd\x00e\x7ff\u009bg'),
      'a\u241bb\u2407c\u240ad\u2400e\u2421f\ufffdg',
    );
  });

  it('does not split a surrogate pair at the cut', () => {
    const shown = safeTitle(`${'a'.repeat(MAX_TITLE_LENGTH - 2)}😀😀😀`);
    assert.ok(shown.length <= MAX_TITLE_LENGTH);
    assert.ok(shown.endsWith('…'));
    assert.doesNotMatch(shown, /[\ud800-\udbff](?![\udc00-\udfff])/, 'no lone high surrogate');
    assert.doesNotMatch(shown, /(?<![\ud800-\udbff])[\udc00-\udfff]/, 'no lone low surrogate');
  });
});
