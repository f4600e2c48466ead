/**
 * RESULT_TOO_LARGE through createServer on an in-memory MCP connection, with a small
 * config.maxResultBytes: a result over the limit is replaced by the error, keeping the session id
 * and the progress fields, and the original error when the call also failed (spec/errors.md).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type InMemoryServer, startInMemoryServer } from '../../helpers/in-memory-server.js';
import { assertToolError } from '../../helpers/tool-calls.js';

const SH = { shell: '/bin/sh', login: false };
const T = { timeout: 30_000 };
/**
 * Small enough that any result with a snapshot of a 200-row screen whose rows are all numbered
 * (`seq 199`, the cursor on row 200) is over it: those rows alone are over 1 KB of JSON.
 */
const LIMIT = 600;

describe('results over config.maxResultBytes', () => {
  let s: InMemoryServer;
  before(async () => {
    s = await startInMemoryServer({ maxResultBytes: LIMIT });
  });
  after(async () => {
    assert.deepEqual(await s.close(), [], 'no process of any session is left');
  });

  /** Starts a 200-row session; its own result is too large, but carries the session id. */
  async function startTall(): Promise<string> {
    const reply = await s.call('terminal_start', {
      command: 'seq 199; exec cat',
      ...SH,
      cols: 40,
      rows: 200,
    });
    const error = assertToolError(reply, 'RESULT_TOO_LARGE');
    assert.equal(error.details.limitBytes, LIMIT);
    assert.ok((error.details.resultBytes as number) > LIMIT);
    assert.deepEqual(Object.keys(reply.data).sort(), ['error', 'sessionId']);
    const id = reply.data.sessionId as string;
    assert.ok(s.registry.has(id), 'the session was started and stays usable');
    return id;
  }

  it('keeps the session id of a terminal_start whose result is too large', T, async () => {
    const id = await startTall();
    const list = await s.call('terminal_list');
    assert.equal(list.isError, false, 'a small result passes');
    assert.ok(list.data.sessions?.some((x) => x.sessionId === id));
    assert.equal((await s.call('terminal_close', { sessionId: id })).data.closed, true);
  });

  it('keeps the progress of a terminal_input whose result is too large', T, async () => {
    const id = await startTall();
    const reply = await s.input(id, [{ type: 'text', text: 'x' }], { settleMs: 0 });
    const error = assertToolError(reply, 'RESULT_TOO_LARGE');
    assert.equal(error.details.originalError, undefined, 'the call itself succeeded');
    assert.deepEqual(reply.data, { sessionId: id, actionsCompleted: 1, inputSent: true, error });
    assert.match(reply.text, /actionsCompleted: 1, inputSent: true/);
    assert.equal((await s.call('terminal_close', { sessionId: id })).data.closed, true);
  });

  it(
    'keeps the failed action and the original error of a failed call too large to return',
    T,
    async () => {
      const id = await startTall();
      const reply = await s.input(id, [
        { type: 'text', text: 'y' },
        { type: 'wait', pattern: 'agent-tty-never-shown', timeoutMs: 200 },
      ]);
      const error = assertToolError(reply, 'RESULT_TOO_LARGE');
      const original = error.details.originalError as { code: string; message: string };
      assert.equal(original.code, 'WAIT_TIMEOUT');
      assert.equal(typeof original.message, 'string');
      assert.deepEqual(reply.data, {
        sessionId: id,
        actionsCompleted: 1,
        inputSent: true,
        failedActionIndex: 1,
        error,
      });
      assert.equal((await s.call('terminal_close', { sessionId: id })).data.closed, true);
    },
  );
});
