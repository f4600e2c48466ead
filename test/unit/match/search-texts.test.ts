import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { searchTexts } from '../../../src/match/search-texts.js';
import { compileQuery, type TextQuery } from '../../../src/shared/text-query.js';

const search = (query: TextQuery, texts: string[], limit = 100, withEmpty = false) =>
  searchTexts({ ...compileQuery(query), texts, limit, withEmpty }).map((h) => [
    h.textIndex,
    h.index,
    h.text,
  ]);

describe('searchTexts', () => {
  it('finds every match of every text in order, up to the limit', () => {
    assert.deepEqual(search({ pattern: 'o+' }, ['foo boo', 'x', 'zoo']), [
      [0, 1, 'oo'],
      [0, 5, 'oo'],
      [2, 1, 'oo'],
    ]);
    assert.deepEqual(search({ pattern: 'o+' }, ['foo boo', 'zoo'], 2), [
      [0, 1, 'oo'],
      [0, 5, 'oo'],
    ]);
  });

  it('skips empty matches for a find and reports them for a wait, without looping', () => {
    assert.deepEqual(search({ pattern: 'x*' }, ['axb']), [[0, 1, 'x']]);
    assert.deepEqual(search({ pattern: '^' }, ['ab', ''], 100, true), [
      [0, 0, ''],
      [1, 0, ''],
    ]);
    // An empty match before an astral character steps over the whole code point.
    assert.deepEqual(search({ pattern: '(?:)' }, ['😀a'], 100, true), [
      [0, 0, ''],
      [0, 2, ''],
      [0, 3, ''],
    ]);
  });

  it('keeps JavaScript RegExp syntax: ignoreCase, backreferences, lookaround, \\p{}', () => {
    assert.deepEqual(search({ pattern: 'ready', ignoreCase: true }, ['READY']), [[0, 0, 'READY']]);
    assert.deepEqual(search({ pattern: '(\\w)\\1' }, ['abba']), [[0, 1, 'bb']]);
    assert.deepEqual(search({ pattern: '(?<=\\$ )\\w+' }, ['$ ls']), [[0, 2, 'ls']]);
    assert.deepEqual(search({ pattern: '\\p{Lu}+' }, ['abcÉTÉ']), [[0, 3, 'ÉTÉ']]);
    assert.deepEqual(search({ text: 'a.b' }, ['axb a.b']), [[0, 4, 'a.b']]);
  });

  it('is self-contained, so the worker can run its source text', () => {
    const copy = new Function(`return ${searchTexts.toString()}`)() as typeof searchTexts;
    const request = {
      ...compileQuery({ pattern: 'b' }),
      texts: ['abc'],
      limit: 1,
      withEmpty: false,
    };
    assert.deepEqual(copy(request), searchTexts(request));
  });

  it('decodes lines given as UTF-8 bytes and their end offsets, and finds the same', () => {
    const lines = ['foo é', '', 'zoo 中 oo'];
    const utf8 = Buffer.from(lines.join(''));
    const ends = new Uint32Array(
      lines.map((_, i) => Buffer.byteLength(lines.slice(0, i + 1).join(''))),
    );
    const hits = searchTexts({
      ...compileQuery({ pattern: 'o+ ?' }),
      texts: { utf8, ends },
      limit: 100,
      withEmpty: false,
    });
    assert.deepEqual(
      hits,
      searchTexts({
        ...compileQuery({ pattern: 'o+ ?' }),
        texts: lines,
        limit: 100,
        withEmpty: false,
      }),
    );
    assert.deepEqual(
      hits.map((h) => [h.textIndex, h.index, h.text]),
      [
        [0, 1, 'oo '],
        [2, 1, 'oo '],
        [2, 6, 'oo'],
      ],
    );
  });
});
