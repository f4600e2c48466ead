import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ParseTurns, type ParseWork } from '../../../src/screen/parse-turns.js';

/** A screen with `steps` pieces to parse, logging each under its name. */
function work(name: string, steps: number, log: string[], onStep?: () => void): ParseWork {
  let left = steps;
  return {
    parseStep() {
      log.push(name);
      onStep?.();
      return --left > 0;
    },
  };
}

const drained = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('ParseTurns', () => {
  it('lets screens take turns, a piece each, in the order they asked', async () => {
    const turns = new ParseTurns(1000);
    const log: string[] = [];
    turns.request(work('a', 3, log));
    turns.request(work('b', 2, log));
    await drained();
    assert.deepEqual(log, ['a', 'b', 'a', 'b', 'a']);
  });

  it("gives the loop's I/O its turn once a turn's budget is spent", async () => {
    let now = 0;
    const turns = new ParseTurns(4, () => now);
    const log: string[] = [];
    turns.request(
      work('a', 3, log, () => {
        now += 5; // each piece takes longer than the budget
        setImmediate(() => log.push('io'));
      }),
    );
    await drained();
    assert.deepEqual(log, ['a', 'io', 'a', 'io', 'a', 'io']);
  });

  it('gives a cancelled screen no more turns, and a screen asking twice one turn at a time', async () => {
    const turns = new ParseTurns(1000);
    const log: string[] = [];
    const a = work('a', 5, log, () => turns.cancel(a));
    turns.request(a);
    turns.request(a);
    await drained();
    assert.deepEqual(log, ['a']);
  });
});
