import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TerminalError } from '../../../src/shared/errors.js';
import { errorResult, guardResultSize } from '../../../src/tools/result.js';
import { snapshotOf } from '../../helpers/fakes.js';

const bytesOf = (result: CallToolResult) => Buffer.byteLength(JSON.stringify(result), 'utf8');

function snapshotResult(screenText: string, extra: Record<string, unknown> = {}): CallToolResult {
  return {
    content: [{ type: 'text', text: screenText }],
    structuredContent: {
      sessionId: 't1',
      actionsCompleted: 3,
      inputSent: true,
      snapshot: { screen: [screenText], cursor: { row: 1, column: 1, visible: true } },
      ...extra,
    },
  };
}

interface ErrorContent {
  code: string;
  message: string;
  details: Record<string, unknown>;
}

function errorOf(result: CallToolResult): ErrorContent {
  return (result.structuredContent as { error: ErrorContent }).error;
}

describe('guardResultSize', () => {
  it('returns a result within the limit unchanged', () => {
    const result = snapshotResult('hello');
    assert.equal(guardResultSize(result, 1_000_000), result);
    assert.equal(guardResultSize(result, bytesOf(result)), result);
  });

  it('counts serialized JSON bytes: escapes and multi-byte characters', () => {
    const result = snapshotResult('\x1b日'.repeat(100));
    const size = bytesOf(result);
    assert.ok(size > 100 * (6 + 3) * 2, 'ESC is 6 bytes and 日 3 bytes, twice');
    assert.equal(guardResultSize(result, size), result);
    assert.notEqual(guardResultSize(result, size - 1), result);
  });

  it('replaces an oversized result by RESULT_TOO_LARGE with the sizes', () => {
    const result = snapshotResult('x'.repeat(5000), { failedActionIndex: 2, title: 'vim' });
    const resultBytes = bytesOf(result);
    const guarded = guardResultSize(result, 1000);
    assert.equal(guarded.isError, true);
    const error = errorOf(guarded);
    assert.equal(error.code, 'RESULT_TOO_LARGE');
    assert.deepEqual(error.details, { resultBytes, limitBytes: 1000 });
    assert.match(error.message, new RegExp(`${resultBytes} bytes, over the 1000-byte limit`));
    assert.deepEqual(guarded.structuredContent, {
      sessionId: 't1',
      actionsCompleted: 3,
      inputSent: true,
      failedActionIndex: 2,
      error,
    });
    const text = (guarded.content[0] as { text: string }).text;
    assert.match(text, /^RESULT_TOO_LARGE: /);
    assert.match(text, /actionsCompleted: 3, inputSent: true, failedActionIndex: 2/);
    assert.ok(bytesOf(guarded) < 1000);
  });

  it('keeps only the fields that are present', () => {
    const result: CallToolResult = {
      content: [{ type: 'text', text: 'y'.repeat(2000) }],
      structuredContent: { sessionId: 't2', snapshot: { screen: ['y'.repeat(2000)] } },
    };
    const guarded = guardResultSize(result, 500);
    assert.deepEqual(Object.keys(guarded.structuredContent ?? {}), ['sessionId', 'error']);
  });

  it('handles a result without structured content', () => {
    const result: CallToolResult = { content: [{ type: 'text', text: 'z'.repeat(2000) }] };
    const guarded = guardResultSize(result, 500);
    assert.deepEqual(Object.keys(guarded.structuredContent ?? {}), ['error']);
    assert.equal(errorOf(guarded).code, 'RESULT_TOO_LARGE');
  });

  it('keeps the original error, its message cut to 1024 characters', () => {
    const cases: [string, Record<string, unknown>][] = [
      ['short message', { code: 'SESSION_EXITED', message: 'the program exited' }],
      ['long message', { code: 'INTERNAL', message: 'm'.repeat(1024), messageTruncated: true }],
    ];
    for (const [name, expected] of cases) {
      const message = name === 'long message' ? 'm'.repeat(5000) : 'the program exited';
      const failure = new TerminalError(
        expected.code as 'INTERNAL',
        message,
        { big: 'b'.repeat(3000) },
        { partial: { sessionId: 't3', snapshot: snapshotOf(['s'.repeat(3000)]) } },
      );
      const guarded = guardResultSize(errorResult(failure), 2000);
      const error = errorOf(guarded);
      assert.equal(error.code, 'RESULT_TOO_LARGE', name);
      assert.deepEqual(error.details.originalError, expected, name);
      assert.equal((guarded.structuredContent as { sessionId: string }).sessionId, 't3');
      assert.equal('snapshot' in (guarded.structuredContent ?? {}), false);
    }
  });

  it('keeps a message of exactly 1024 characters without the truncation flag', () => {
    const failure = new TerminalError(
      'INTERNAL',
      'n'.repeat(1024),
      {},
      {
        partial: { snapshot: snapshotOf(['x'.repeat(5000)]) },
      },
    );
    const guarded = guardResultSize(errorResult(failure), 3000);
    assert.deepEqual(errorOf(guarded).details.originalError, {
      code: 'INTERNAL',
      message: 'n'.repeat(1024),
    });
  });
});

describe('errorResult', () => {
  it('shows the code, the progress and the latest screen a failure carries', () => {
    const error = new TerminalError(
      'WAIT_TIMEOUT',
      'waited 100 ms for /x/ to appear',
      {},
      {
        partial: {
          sessionId: 't4',
          actionsCompleted: 1,
          inputSent: true,
          failedActionIndex: 1,
          snapshot: snapshotOf(['$ echo hi', 'hi']),
        },
      },
    );
    const result = errorResult(error);
    assert.equal(result.isError, true);
    const text = (result.content[0] as { text: string }).text;
    assert.match(text, /^WAIT_TIMEOUT: waited 100 ms/);
    assert.match(text, /\nactionsCompleted: 1, inputSent: true, failedActionIndex: 1\n/);
    assert.match(text, /\nlatest screen:\nsession t4 · running/);
    assert.match(text, /2│hi/);
    const structured = result.structuredContent as Record<string, unknown>;
    assert.equal(structured.sessionId, 't4');
    assert.deepEqual(errorOf(result), {
      code: 'WAIT_TIMEOUT',
      message: error.message,
      details: {},
    });
  });

  it('a failure without a snapshot has no screen text', () => {
    const result = errorResult(
      new TerminalError(
        'SESSION_NOT_FOUND',
        'session "t9" not found',
        { sessionId: 't9' },
        {
          partial: { sessionId: 't9' },
        },
      ),
    );
    const text = (result.content[0] as { text: string }).text;
    assert.equal(text, 'SESSION_NOT_FOUND: session "t9" not found');
  });
});
