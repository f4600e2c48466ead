import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { asDiscover, refuse, unknownMethod } from '../../../src/transport/http-replies.js';

/** What a client reads when the server answers with `reply`. */
async function answer(reply: (res: ServerResponse) => void) {
  const server = createServer((_req, res) => reply(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return { status: res.status, headers: res.headers, body: await res.json() };
  } finally {
    server.close();
  }
}

describe('the HTTP transport’s own replies', () => {
  it('refuses with a JSON-RPC error of no id, the status and headers given', async () => {
    const got = await answer((res) => refuse(res, 429, 'too many', { 'retry-after': '1' }));
    assert.equal(got.status, 429);
    assert.equal(got.headers.get('retry-after'), '1');
    assert.equal(got.headers.get('content-type'), 'application/json');
    assert.deepEqual(got.body, {
      jsonrpc: '2.0',
      error: { code: -32001, message: 'too many' },
      id: null,
    });
  });

  it('answers server/discover with method not found and its id', async () => {
    const got = await answer((res) => unknownMethod(res, 'probe-7'));
    assert.equal(got.status, 200);
    const body = got.body as { id: unknown; error: { code: number } };
    assert.deepEqual([body.id, body.error.code], ['probe-7', -32601]);
  });

  it('knows a server/discover request, and nothing else, by its method and id', () => {
    assert.deepEqual(asDiscover({ jsonrpc: '2.0', id: 3, method: 'server/discover' }), { id: 3 });
    assert.equal(asDiscover({ jsonrpc: '2.0', method: 'server/discover' }), undefined);
    assert.equal(asDiscover({ jsonrpc: '2.0', id: 3, method: 'tools/list' }), undefined);
    assert.equal(asDiscover([{ jsonrpc: '2.0', id: 3, method: 'server/discover' }]), undefined);
    assert.equal(asDiscover(null), undefined);
  });
});
