import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { type BodyRead, readBody } from '../../../src/transport/http-body.js';

/** Sends `body` (declared or chunked) to a server that reads it with a 16-byte bound. */
async function readAt(body: string, chunked: boolean): Promise<BodyRead> {
  let seen: BodyRead | undefined;
  const server = createServer(async (req, res) => {
    seen = await readBody(req, 16);
    req.resume();
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve, reject) => {
    const req = request({ port, method: 'POST', host: '127.0.0.1' }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    if (!chunked) req.setHeader('content-length', Buffer.byteLength(body));
    for (const piece of body.match(/.{1,5}/gs) ?? []) req.write(piece);
    req.end();
  });
  server.close();
  return seen as BodyRead;
}

describe('readBody', () => {
  it('reads a body up to the bound, declared or chunked', async () => {
    assert.deepEqual(await readAt('0123456789abcdef', false), {
      ok: true,
      text: '0123456789abcdef',
    });
    assert.deepEqual(await readAt('0123456789abcdef', true), {
      ok: true,
      text: '0123456789abcdef',
    });
  });

  it('refuses one byte more, declared or streamed', async () => {
    assert.deepEqual(await readAt('0123456789abcdefX', false), { ok: false, reason: 'too-large' });
    assert.deepEqual(await readAt('0123456789abcdefX', true), { ok: false, reason: 'too-large' });
  });
});
