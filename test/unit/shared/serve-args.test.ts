import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { parseServeArgs } from '../../../src/shared/serve-args.js';

describe('parseServeArgs', () => {
  it('takes --http and --token-file out, in both forms, and leaves the rest', () => {
    const args = parseServeArgs(['--http', '7681', '--max-sessions', '4', '--token-file=t']);
    assert.deepEqual(args.http, { host: '127.0.0.1', port: 7681, isLoopback: true });
    assert.equal(args.tokenFile, resolve('t'));
    assert.deepEqual(args.rest, ['--max-sessions', '4']);
  });

  it('is stdio without --http, and refuses --token-file alone or a flag without a value', () => {
    assert.equal(parseServeArgs([]).http, undefined);
    assert.throws(() => parseServeArgs(['--token-file', 't']), /only for serve --http/);
    assert.throws(() => parseServeArgs(['--http']), /--http needs a value/);
    assert.throws(() => parseServeArgs(['--http=']), /--http needs a value/);
  });

  it('takes --tls-cert and --tls-key together, absolute, only with --http', () => {
    const args = parseServeArgs(['--http', '7681', '--tls-cert', 'c.pem', '--tls-key=k.pem']);
    assert.deepEqual(args.tls, { cert: resolve('c.pem'), key: resolve('k.pem') });
    assert.deepEqual(args.rest, []);
    assert.equal(parseServeArgs(['--http', '7681']).tls, undefined);
    assert.throws(
      () => parseServeArgs(['--http', '7681', '--tls-key', 'k.pem']),
      /HTTPS needs both --tls-cert .* and --tls-key/,
    );
    assert.throws(
      () => parseServeArgs(['--tls-cert', 'c.pem', '--tls-key', 'k.pem']),
      /--tls-cert is only for serve --http/,
    );
  });
});
