import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { MatchPool } from '../../../src/match/match-pool.js';
import { TerminalError } from '../../../src/shared/errors.js';
import { compileQuery } from '../../../src/shared/text-query.js';

const EVIL = compileQuery({ pattern: '(a+)+$' });
const EVIL_ROW = `${'a'.repeat(40)}!`;
const BUDGET_MS = 300;

/** The longest gap between ticks of a 10 ms interval while `work` runs: how stalled the loop was. */
async function longestStall<T>(work: Promise<T>): Promise<{ value: T | Error; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 10);
  try {
    const value = await work.catch((err: Error) => err);
    return { value, stallMs };
  } finally {
    clearInterval(tick);
  }
}

function code(value: unknown): string | undefined {
  return value instanceof TerminalError ? value.code : undefined;
}

describe('MatchPool', () => {
  const pool = new MatchPool({ budgetMs: BUDGET_MS, maxWorkers: 2 });
  after(() => pool.close());

  it('answers ordinary searches like searchTexts', async () => {
    const hits = await pool.search(
      compileQuery({ pattern: 'b+', ignoreCase: true }),
      ['aBb', 'b'],
      {
        limit: 10,
      },
    );
    assert.deepEqual(hits, [
      { textIndex: 0, index: 1, text: 'Bb' },
      { textIndex: 1, index: 0, text: 'b' },
    ]);
  });

  it('stops a catastrophic pattern at the budget with PATTERN_TIMEOUT, main loop free', async () => {
    const started = performance.now();
    const { value, stallMs } = await longestStall(pool.search(EVIL, [EVIL_ROW], { limit: 1 }));
    const ms = performance.now() - started;
    assert.equal(code(value), 'PATTERN_TIMEOUT');
    assert.deepEqual((value as TerminalError).details, { pattern: '(a+)+$', budgetMs: BUDGET_MS });
    assert.ok(ms >= BUDGET_MS && ms < BUDGET_MS + 2000, `ended after ${Math.round(ms)} ms`);
    assert.ok(stallMs < 150, `event loop stalled ${Math.round(stallMs)} ms`);
    // A fresh worker serves the next search.
    assert.deepEqual(await pool.search(compileQuery({ text: '!' }), [EVIL_ROW], { limit: 1 }), [
      { textIndex: 0, index: 40, text: '!' },
    ]);
  });

  it('does not hold up other searches while one runs long', async () => {
    const two = new MatchPool({ budgetMs: 5000, maxWorkers: 2 });
    try {
      // Both workers started and answering.
      const warm = compileQuery({ text: 'warm' });
      await Promise.all([
        two.search(warm, ['warm'], { limit: 1 }),
        two.search(warm, [], { limit: 1 }),
      ]);
      const evil = two.search(EVIL, [EVIL_ROW], { limit: 1 }).catch((err: Error) => err);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const started = performance.now();
      const hits = await two.search(compileQuery({ text: 'a!' }), [EVIL_ROW], { limit: 1 });
      const ms = performance.now() - started;
      assert.equal(hits.length, 1);
      assert.ok(ms < 1000, `the ordinary search took ${Math.round(ms)} ms, not the 5 s budget`);
      two.close();
      assert.equal(code(await evil), 'CANCELLED');
    } finally {
      two.close();
    }
  });

  it('stops a running search when it is cancelled, freeing its worker', async () => {
    const single = new MatchPool({ budgetMs: 10_000, maxWorkers: 1 });
    try {
      const controller = new AbortController();
      const search = single.search(EVIL, [EVIL_ROW], { limit: 1, signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = performance.now();
      controller.abort();
      assert.equal(code(await search.catch((e: Error) => e)), 'CANCELLED');
      assert.ok(performance.now() - started < 500, 'rejected at once');
      // The only worker was stopped, not left running to the 10 s budget: the next search runs.
      const hits = await single.search(compileQuery({ text: '!' }), [EVIL_ROW], { limit: 1 });
      assert.equal(hits.length, 1);
      assert.ok(performance.now() - started < 3000, 'the next search did not wait for the budget');
    } finally {
      single.close();
    }
  });

  it('queues searches beyond its workers and runs them in order', async () => {
    const single = new MatchPool({ budgetMs: BUDGET_MS, maxWorkers: 1 });
    try {
      const evil = single.search(EVIL, [EVIL_ROW], { limit: 1 }).catch((err: Error) => err);
      const next = single.search(compileQuery({ text: 'a' }), ['ba'], { limit: 1 });
      assert.equal(code(await evil), 'PATTERN_TIMEOUT');
      assert.deepEqual(await next, [{ textIndex: 0, index: 1, text: 'a' }]);
    } finally {
      single.close();
    }
  });

  it('fails searches in flight and queued when closed', async () => {
    const closing = new MatchPool({ budgetMs: 5000, maxWorkers: 1 });
    const first = closing.search(EVIL, [EVIL_ROW], { limit: 1 }).catch((err: Error) => err);
    const second = closing.search(EVIL, [EVIL_ROW], { limit: 1 }).catch((err: Error) => err);
    closing.close();
    assert.equal(code(await first), 'CANCELLED');
    assert.equal(code(await second), 'CANCELLED');
    assert.equal(closing.workerCount, 0);
  });
});

describe('MatchPool and process exit', () => {
  it('an idle pool does not keep the process alive', async () => {
    // A child process that searches once and never closes the pool must still exit by itself.
    const { spawnSync } = await import('node:child_process');
    const pool = new URL('../../../src/match/match-pool.js', import.meta.url).href;
    const query = new URL('../../../src/shared/text-query.js', import.meta.url).href;
    const script = `
      const { MatchPool } = await import(${JSON.stringify(pool)});
      const { compileQuery } = await import(${JSON.stringify(query)});
      const hits = await new MatchPool().search(compileQuery({ text: 'b' }), ['abc'], { limit: 1 });
      console.log(hits.length);
    `;
    const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'agent-tty-pool-'));
    const file = join(dir, 'search-once.mjs');
    writeFileSync(file, script);
    const result = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 10_000 });
    rmSync(dir, { recursive: true, force: true });
    assert.equal(result.signal, null, 'the process had to be killed: a worker kept it alive');
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.trim(), '1');
  });
});
