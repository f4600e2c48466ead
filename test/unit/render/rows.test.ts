import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatHistory, formatScreenRows, formatScrollback } from '../../../src/render/rows.js';

describe('formatScreenRows', () => {
  it('numbers each row, padded to the width', () => {
    assert.deepEqual(formatScreenRows(['$ ls', 'a  b'], 2, 2), [' 1│$ ls', ' 2│a  b']);
  });

  it('makes a run of two or more blank rows one line, and keeps a single blank row', () => {
    assert.deepEqual(formatScreenRows(['top', '', 'mid', '', '', '', 'end'], 7, 1), [
      '1│top',
      '2│',
      '3│mid',
      '4-6│ (blank)',
      '7│end',
    ]);
  });

  it('makes two blank rows one line', () => {
    assert.deepEqual(formatScreenRows(['a', '', '', 'b'], 4, 1), ['1│a', '2-3│ (blank)', '4│b']);
  });

  it('counts rows past the end of the screen text as blank, up to rows', () => {
    assert.deepEqual(formatScreenRows(['$ '], 10, 2), [' 1│$ ', '2-10│ (blank)']);
    assert.deepEqual(formatScreenRows(['a', 'b', 'c'], 2, 1), ['1│a', '2│b']);
  });
});

describe('formatHistory', () => {
  it('numbers the new lines by history line and says where to continue', () => {
    assert.deepEqual(formatHistory({ since: 10, lines: ['x', 'y'], total: 12, missedLines: 0 }), [
      'history after line 10: 2 new lines; lines 11-12 below; continue with historySince 12:',
      '11│x',
      '12│y',
    ]);
  });

  it('names lines dropped unread and lines still to read', () => {
    assert.deepEqual(
      formatHistory({ since: 5, lines: ['f'], total: 9, missedLines: 3, nextSince: 6 }),
      [
        'history after line 2: 7 new lines; lines 3-5 dropped before they were read; line 6 below; 3 more lines: continue with historySince 6:',
        '6│f',
      ],
    );
  });

  it('says there is nothing new in one line, with a transcript error after it', () => {
    assert.deepEqual(
      formatHistory({ since: 4, lines: [], total: 4, missedLines: 0, transcriptError: 'ENOSPC' }),
      ['history after line 4: 0 new lines; continue with historySince 4', 'transcript: ENOSPC'],
    );
  });

  it('pads numbers to the widest', () => {
    const lines = formatHistory({ since: 8, lines: ['a', 'b', 'c'], total: 11, missedLines: 0 });
    assert.deepEqual(lines.slice(1), [' 9│a', '10│b', '11│c']);
  });
});

describe('formatScrollback', () => {
  it('numbers the last lines of history so they end at historyTotal', () => {
    assert.deepEqual(formatScrollback({ lines: ['p', 'q'], availableLines: 50 }, 20), [
      'scrollback: lines 19-20 of history, the last 2 of 50 held; lines 1-18 before them: read with historySince:',
      '19│p',
      '20│q',
    ]);
  });

  it('has nothing to point back to when it starts at line 1', () => {
    assert.deepEqual(formatScrollback({ lines: ['only'], availableLines: 1 }, 1), [
      'scrollback: line 1 of history, the last 1 of 1 held:',
      '1│only',
    ]);
    assert.deepEqual(formatScrollback({ lines: [], availableLines: 0 }, 0), [
      'scrollback: no history lines',
    ]);
  });
});
