import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { editDistance, nearestNames, normalizeName } from '../../../src/input/nearest-name.js';

const KEYS: [string, string][] = [
  ['enter', 'Enter'],
  ['return', 'Enter'],
  ['escape', 'Escape'],
  ['pagedown', 'PageDown'],
  ['pageup', 'PageUp'],
  ['home', 'Home'],
  ['c-r', 'C-r'],
];

describe('normalizeName', () => {
  it('drops case, spaces and underscores, not hyphens', () => {
    assert.equal(normalizeName('Page Down'), 'pagedown');
    assert.equal(normalizeName('page_down'), 'pagedown');
    assert.equal(normalizeName('C-r'), 'c-r');
  });
});

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and a transposition as one each', () => {
    assert.equal(editDistance('enter', 'enter', 2), 0);
    assert.equal(editDistance('entr', 'enter', 2), 1);
    assert.equal(editDistance('entrer', 'enter', 2), 1);
    assert.equal(editDistance('emter', 'enter', 2), 1);
    assert.equal(editDistance('etner', 'enter', 2), 1);
    assert.equal(editDistance('kitten', 'sitting', 5), 3);
  });

  it('stops at the cap, answering cap + 1', () => {
    assert.equal(editDistance('a', 'abcdef', 2), 3);
    assert.equal(editDistance('abcd', 'wxyz', 1), 2);
  });
});

describe('nearestNames', () => {
  it('suggests the nearest name once, whichever spelling it is near', () => {
    assert.deepEqual(nearestNames('Entr', KEYS), ['Enter']);
    assert.deepEqual(nearestNames('retrun', KEYS), ['Enter']);
    assert.deepEqual(nearestNames('page_dwon', KEYS), ['PageDown']);
  });

  it('lists every name at the best distance, in the order given, at most max', () => {
    const near: [string, string][] = [
      ['abcxx', 'Far'],
      ['abcde', 'First'],
      ['abcdf', 'Second'],
      ['abcdg', 'Third'],
    ];
    assert.deepEqual(nearestNames('abcdz', near), ['First', 'Second', 'Third']);
    assert.deepEqual(nearestNames('abcdz', near, 2), ['First', 'Second']);
    assert.deepEqual(nearestNames('pagexp', KEYS), ['PageUp']);
  });

  it('suggests nothing for under 3 characters, or past one edit up to 4 and two beyond', () => {
    assert.deepEqual(nearestNames('en', KEYS), []);
    assert.deepEqual(nearestNames('hxxe', KEYS), [], 'two edits from home, at 4 characters');
    assert.deepEqual(nearestNames('hme', KEYS), ['Home']);
    assert.deepEqual(nearestNames('escxxx', KEYS), []);
    assert.deepEqual(nearestNames('esxape', KEYS), ['Escape']);
  });
});
