import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  formatHttpAuthority,
  isLoopbackHost,
  parseHttpAddress,
} from '../../../src/shared/http-address.js';

describe('parseHttpAddress', () => {
  it('reads PORT, HOST:PORT and [V6]:PORT, the host defaulting to 127.0.0.1', () => {
    assert.deepEqual(parseHttpAddress('7681'), { host: '127.0.0.1', port: 7681, isLoopback: true });
    assert.deepEqual(parseHttpAddress('0.0.0.0:80'), {
      host: '0.0.0.0',
      port: 80,
      isLoopback: false,
    });
    assert.deepEqual(parseHttpAddress('[::1]:7681'), { host: '::1', port: 7681, isLoopback: true });
    assert.deepEqual(parseHttpAddress('localhost:0'), {
      host: 'localhost',
      port: 0,
      isLoopback: true,
    });
    assert.equal(parseHttpAddress('box.example:7681').isLoopback, false);
  });

  it('refuses what is not an address, naming the form', () => {
    for (const bad of ['', 'abc', '70000', '1.2.3.4:', ':80', '::1:80', '[zz]:80', '1.2.3.4:80x']) {
      assert.throws(
        () => parseHttpAddress(bad),
        /INVALID_ARGUMENT|expected \[HOST:\]PORT|IPv6/,
        bad,
      );
    }
  });
});

describe('isLoopbackHost and formatHttpAuthority', () => {
  it('counts 127.0.0.0/8, ::1 and localhost as loopback, nothing else', () => {
    assert.deepEqual(
      [
        '127.0.0.1',
        '127.8.9.10',
        '::1',
        'LOCALHOST',
        '0.0.0.0',
        '::',
        '10.0.0.1',
        '127.example',
      ].map(isLoopbackHost),
      [true, true, true, true, false, false, false, false],
    );
  });

  it('brackets an IPv6 host', () => {
    assert.equal(formatHttpAuthority({ host: '::1', port: 1 }), '[::1]:1');
    assert.equal(formatHttpAuthority({ host: '127.0.0.1', port: 1 }), '127.0.0.1:1');
  });
});
