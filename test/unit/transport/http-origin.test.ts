import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseHttpAddress } from '../../../src/shared/http-address.js';
import { allowedHosts, checkHostAndOrigin } from '../../../src/transport/http-origin.js';

describe('checkHostAndOrigin', () => {
  const loopback = allowedHosts(parseHttpAddress('127.0.0.1:7681'));

  it('lets a loopback server answer only loopback names with its port', () => {
    assert.deepEqual(loopback, ['127.0.0.1:7681', 'localhost:7681', '[::1]:7681']);
    for (const host of ['127.0.0.1:7681', 'LOCALHOST:7681', '[::1]:7681']) {
      assert.deepEqual(checkHostAndOrigin(loopback, host, undefined), { ok: true }, host);
    }
    for (const host of ['evil.example:7681', 'localhost:80', 'localhost', '', undefined]) {
      assert.deepEqual(checkHostAndOrigin(loopback, host, undefined), {
        ok: false,
        reason: 'host',
      });
    }
  });

  it('accepts any Host on a non-loopback bind (the token guards it)', () => {
    const any = allowedHosts(parseHttpAddress('0.0.0.0:7681'));
    assert.equal(any, undefined);
    assert.deepEqual(checkHostAndOrigin(any, 'box.example:7681', undefined), { ok: true });
  });

  it('refuses an Origin other than the server itself', () => {
    const host = 'localhost:7681';
    assert.deepEqual(checkHostAndOrigin(loopback, host, 'http://localhost:7681'), { ok: true });
    assert.deepEqual(checkHostAndOrigin(loopback, host, 'https://localhost:7681'), { ok: true });
    for (const origin of [
      'http://evil.example',
      'null',
      'http://localhost:7682',
      'http://127.0.0.1:7681',
    ]) {
      assert.deepEqual(checkHostAndOrigin(loopback, host, origin), { ok: false, reason: 'origin' });
    }
  });
});
