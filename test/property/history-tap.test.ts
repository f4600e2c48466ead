import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Screen } from '../../src/screen/screen.js';
import { readAllHistory } from '../helpers/history.js';

/**
 * History against a model (the numbered lines written so far): after any sequence of output and
 * resizes, taller and shorter in any order, history is exactly lines 1..historyTotal, each once,
 * and screen row 1 is line historyTotal + 1.
 */

const COLS = 20;

const op = fc.oneof(
  fc.integer({ min: 1, max: 30 }).map((count) => ({ kind: 'lines' as const, count })),
  fc.integer({ min: 2, max: 14 }).map((rows) => ({ kind: 'rows' as const, rows })),
);

describe('history through resizes', () => {
  it('holds every line that scrolled off once, in order, numbered as the screen is', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 14 }),
        fc.array(op, { minLength: 1, maxLength: 12 }),
        async (rows, ops) => {
          const screen = new Screen({ cols: COLS, rows, scrollback: 64, onReply: () => {} });
          try {
            let written = 0;
            for (const o of ops) {
              if (o.kind === 'lines') {
                let text = '';
                for (let i = 0; i < o.count; i++) text += `L${++written}\r\n`;
                screen.write(Buffer.from(text));
                await screen.whenParsed();
              } else {
                screen.resize(COLS, o.rows);
              }
              const total = screen.historyTotal;
              const expected = Array.from({ length: total }, (_, i) => `L${i + 1}`);
              assert.deepEqual(readAllHistory(screen, 9), expected);
              if (total < written) assert.equal(screen.grid().screen[0], `L${total + 1}`);
            }
          } finally {
            screen.dispose();
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
