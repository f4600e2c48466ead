/**
 * The HTTP listener's time bounds (spec/http.md, Limits; src/transport/http-server.ts): a client
 * that sends its request headers too slowly gets 408 and is dropped, and one that never finishes
 * its TLS handshake is dropped, once `headersTimeoutMs` has passed, and the listener serves on.
 * Here the bound is 500 ms; test/e2e/http-security.test.ts and http-tls.test.ts check the built
 * server at its own bound (10 s) in the heavy layer (test/helpers/layers.ts).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { silentLogger } from '../../src/shared/log.js';
import { HTTP_LIMITS, type HttpLimits, HttpMcpServer } from '../../src/transport/http-server.js';
import type { TlsFiles } from '../../src/transport/tls.js';
import { which } from '../helpers/programs.js';

const LIMITS: HttpLimits = { ...HTTP_LIMITS, headersTimeoutMs: 500 };

function listen(tls?: TlsFiles): Promise<HttpMcpServer> {
  return HttpMcpServer.listen({
    address: { host: '127.0.0.1', port: 0, isLoopback: true },
    token: 'a'.repeat(64),
    tls,
    logger: silentLogger,
    newEndpoint: () => {
      throw new Error('no request here gets as far as an MCP session');
    },
    limits: LIMITS,
  });
}

/** A raw connection to `port`, and how long after it was opened it closed, with what it got. */
async function openSocket(port: number) {
  const opened = performance.now();
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
  let received = '';
  socket.on('data', (d: Buffer) => {
    received += d.toString('latin1');
  });
  const closed = new Promise<number>((resolve) => {
    socket.on('close', () => resolve(performance.now() - opened));
  });
  // A reset after the server's 408 is as good as a close.
  socket.on('error', () => undefined);
  return { socket, closed, received: () => received };
}

/** Answers a GET of another path with 404: the listener still serves. */
async function servesOn(server: HttpMcpServer, scheme: 'http' | 'https', ca?: Buffer) {
  if (scheme === 'https') {
    const { request } = await import('node:https');
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        `https://127.0.0.1:${server.port}/other`,
        { ca: ca ? [ca] : [] },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 404);
    return;
  }
  const res = await fetch(`http://127.0.0.1:${server.port}/other`);
  await res.arrayBuffer();
  assert.equal(res.status, 404);
}

describe('the HTTP listener drops slow clients at headersTimeoutMs', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tty-http-timeouts-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('answers 408 to a client that sends its headers a byte at a time, and drops it', async () => {
    const server = await listen();
    try {
      const c = await openSocket(server.port);
      c.socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`);
      const drip = setInterval(() => c.socket.writable && c.socket.write('x'), 50);
      const elapsed = await c.closed.finally(() => clearInterval(drip));
      assert.ok(elapsed >= LIMITS.headersTimeoutMs, `dropped after ${Math.round(elapsed)} ms`);
      assert.match(c.received(), /^HTTP\/1\.1 408 |^$/);
      await servesOn(server, 'http');
    } finally {
      await server.close();
    }
  });

  it('drops a connection that never finishes its TLS handshake', {
    skip: which('openssl') ? false : 'openssl is not installed',
  }, async () => {
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    const files = { cert: readFileSync(cert), key: readFileSync(key) };
    const server = await listen(files);
    try {
      const c = await openSocket(server.port);
      c.socket.write(Buffer.from([0x16, 0x03, 0x01])); // the start of a ClientHello, and no more
      const elapsed = await c.closed;
      assert.ok(elapsed >= LIMITS.headersTimeoutMs, `dropped after ${Math.round(elapsed)} ms`);
      await servesOn(server, 'https', files.cert);
    } finally {
      await server.close();
    }
  });
});
