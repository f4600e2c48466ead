import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  StdioTransport,
  TRANSPORT_LIMITS,
  type TransportLimits,
} from '../../../src/transport/stdio-transport.js';

/** A transport over two PassThrough streams: what the client writes, what it reads back. */
async function open(limits: Partial<TransportLimits> = {}) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioTransport(stdin, stdout, { ...TRANSPORT_LIMITS, ...limits });
  const received: JSONRPCMessage[] = [];
  const errors: string[] = [];
  transport.onmessage = (m) => received.push(m);
  transport.onerror = (e) => errors.push(e.message);
  const written: unknown[] = [];
  let buffered = '';
  stdout.setEncoding('utf8');
  stdout.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
      written.push(JSON.parse(buffered.slice(0, end)));
      buffered = buffered.slice(end + 1);
    }
  });
  await transport.start();
  const write = (line: string) => {
    stdin.write(`${line}\n`);
    return tick();
  };
  const request = (id: number | string, method = 'tools/list') =>
    write(JSON.stringify({ jsonrpc: '2.0', id, method }));
  return { stdin, stdout, transport, received, errors, written, write, request };
}

/** Lets stream events run. */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

const ids = (messages: readonly JSONRPCMessage[]) =>
  messages.map((m) => ('id' in m ? m.id : (m as { method: string }).method));

describe('StdioTransport', { timeout: 60_000 }, () => {
  it('passes requests on and answers a line that is not JSON itself', async () => {
    const t = await open();
    await t.request(1);
    await t.write('{oops');
    await t.write('');
    assert.deepEqual(t.received, [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]);
    assert.deepEqual(t.written, [
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'parse error: the line is not valid JSON' },
      },
    ]);
    assert.deepEqual(t.errors, ['ignored an empty line from the client']);
  });

  it('refuses an id already in flight, and frees it once answered', async () => {
    const t = await open();
    await t.request('a');
    await t.request('a');
    assert.equal(t.received.length, 1);
    assert.match(
      (t.written[0] as { error: { message: string } }).error.message,
      /request id "a" is already in use by a request in progress; use a new id/,
    );
    await t.transport.send({ jsonrpc: '2.0', id: 'a', result: {} });
    await tick();
    await t.request('a');
    assert.equal(t.received.length, 2);
  });

  it('holds requests past maxInFlight until a reply has been written, in order', async () => {
    const t = await open({ maxInFlight: 2 });
    for (const id of [1, 2, 3, 4]) await t.request(id);
    assert.deepEqual(ids(t.received), [1, 2]);
    await t.transport.send({ jsonrpc: '2.0', id: 2, result: {} });
    await tick();
    assert.deepEqual(ids(t.received), [1, 2, 3]);
    await t.transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    await tick();
    assert.deepEqual(ids(t.received), [1, 2, 3, 4]);
  });

  it('drops a queued request that is cancelled, and passes the cancellation of a running one', async () => {
    const t = await open({ maxInFlight: 1 });
    await t.request(1);
    await t.request(2);
    const cancel = (requestId: number) =>
      t.write(
        JSON.stringify({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId },
        }),
      );
    await cancel(2);
    assert.deepEqual(ids(t.received), [1], 'request 2 never starts, and the SDK never hears of it');
    await cancel(1);
    assert.deepEqual(ids(t.received), [1, 'notifications/cancelled']);
    // Request 1's slot is free: the next request starts at once.
    await t.request(3);
    assert.deepEqual(ids(t.received), [1, 'notifications/cancelled', 3]);
    assert.deepEqual(t.written, [], 'a cancelled request gets no reply');
  });

  it('answers a line over the limit with its id, as it streams', async () => {
    const t = await open({ maxLineBytes: 1024 * 1024 });
    const padding = 'x'.repeat(1024 * 1024);
    await t.write(
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { padding } }),
    );
    assert.deepEqual(t.received, []);
    assert.deepEqual(t.written, [
      {
        jsonrpc: '2.0',
        id: 7,
        error: {
          code: -32600,
          message:
            'invalid request: the message is longer than the 1 MiB line limit and was discarded',
        },
      },
    ]);
  });

  it('writes error texts with controls made visible', async () => {
    const t = await open();
    await t.request(1);
    await t.transport.send({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'no tool "\u001b[2J"' },
    });
    await tick();
    const [reply] = t.written as { error: { message: string } }[];
    assert.ok(reply);
    assert.equal(reply.error.message.includes('\u001b'), false);
  });

  it('stops reading stdin while requests queue up past the bound, and reads again once they start', async () => {
    const t = await open({ maxInFlight: 1, maxQueuedRequests: 2 });
    for (const id of [1, 2, 3]) await t.request(id);
    assert.equal(t.stdin.isPaused(), true);
    await t.transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    await tick();
    assert.equal(t.stdin.isPaused(), false);
  });

  it('sends nothing and passes nothing on once closed', async () => {
    const t = await open();
    let closed = 0;
    t.transport.onclose = () => closed++;
    await t.transport.close();
    await t.transport.close();
    assert.equal(closed, 1);
    await t.request(1);
    await t.transport.send({ jsonrpc: '2.0', method: 'notifications/message' });
    await tick();
    assert.deepEqual(t.received, []);
    assert.deepEqual(t.written, []);
  });
});
