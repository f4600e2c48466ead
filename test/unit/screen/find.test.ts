import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { placeLineMatches, textColumns } from '../../../src/screen/find.js';

describe('textColumns', () => {
  it('counts cells by the emulator widths: wide characters two, joining marks none', () => {
    assert.deepEqual(textColumns('a日🙂b'), [1, 2, 4, 4, 6]);
    assert.deepEqual(textColumns('e\u0301x'), [1, 1, 2]);
    assert.deepEqual(textColumns(''), []);
  });

  it('stops after the units asked for', () => {
    assert.deepEqual(textColumns('abcdef', 2), [1, 2]);
  });
});

describe('placeLineMatches', () => {
  it('numbers each match by its history line and places it by cell column', () => {
    const texts = ['no', 'x 日本 ERROR here', 'ERROR'];
    const hits = [
      { textIndex: 1, index: 5, text: 'ERROR' },
      { textIndex: 2, index: 0, text: 'ERROR' },
    ];
    assert.deepEqual(placeLineMatches(texts, hits, 1234), [
      { line: 1235, column: 8, endColumn: 12, text: 'ERROR' },
      { line: 1236, column: 1, endColumn: 5, text: 'ERROR' },
    ]);
  });
});
