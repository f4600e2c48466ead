/**
 * `serve --http --tls-cert --tls-key` (spec/http.md, TLS): a real client that trusts the
 * certificate (the SDK's Client in a Node process given it with NODE_EXTRA_CA_CERTS, as a user
 * would run Claude Code) drives a terminal over HTTPS; plain HTTP on that port gets no answer; the
 * token is still required; files that cannot serve HTTPS are refused at start, saying why; a
 * connection that never finishes its handshake is dropped: at the server's 10 s bound in the heavy
 * layer (test/helpers/layers.ts), at a bound of 500 ms in npm test
 * (test/integration/http-timeouts.test.ts).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type HttpServer, newToken, runServe, startHttpServer } from '../helpers/http-server.js';
import { heavyOnly } from '../helpers/layers.js';
import { ROOT } from '../helpers/paths.js';

/** A self-signed certificate for localhost and 127.0.0.1, and its key, made with openssl. */
function makeCertificate(dir: string, name: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.pem`);
  const key = join(dir, `${name}-key.pem`);
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
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

/** What a client that trusts `ca` gets from one call over `url`: the SDK's Client, in a child. */
function callOverHttps(url: string, token: string, ca: string): Promise<string> {
  const script = `
    import { Client } from '@modelcontextprotocol/sdk/client/index.js';
    import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
    const transport = new StreamableHTTPClientTransport(new URL(process.env.URL), {
      requestInit: { headers: { Authorization: 'Bearer ' + process.env.TOKEN } },
    });
    const client = new Client({ name: 'tls-client', version: '1.0.0' });
    await client.connect(transport);
    const started = await client.callTool({
      name: 'terminal_start',
      arguments: { command: 'echo tls-$((40+2))', login: false, waitForExit: true },
    });
    process.stdout.write(JSON.stringify(started.structuredContent));
    await client.close();
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { ...process.env, URL: url, TOKEN: token, NODE_EXTRA_CA_CERTS: ca },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
    });
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`client exited ${code}: ${err}`)),
    );
  });
}

describe('MCP over HTTPS', () => {
  const token = newToken();
  const dir = mkdtempSync(join(tmpdir(), 'agent-tty-tls-'));
  let pair: { cert: string; key: string };
  let server: HttpServer;

  before(async () => {
    pair = makeCertificate(dir, 'server');
    server = await startHttpServer({
      env: { AGENT_TTY_TOKEN: token },
      args: ['--tls-cert', pair.cert, '--tls-key', pair.key],
    });
  });
  after(async () => {
    if (server?.child.exitCode === null) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a client that trusts the certificate, and says https in its start-up lines', async () => {
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.match(server.stderr(), /serving MCP over HTTPS at https:/);
    assert.match(server.stderr(), /claude mcp add --transport http agent-tty https:/);
    const result = JSON.parse(await callOverHttps(server.url, token, pair.cert));
    assert.equal(result.snapshot.status, 'exited');
    assert.ok(result.snapshot.screen.includes('tls-42'), JSON.stringify(result.snapshot.screen));
  });

  it('still wants the token, and answers nothing in plain HTTP', async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = httpsRequest(
        server.url,
        {
          method: 'POST',
          ca: [readFileSync(pair.cert)],
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    assert.equal(status, 401);
    const plain = await new Promise<string>((resolve) => {
      const req = httpRequest(server.url.replace('https:', 'http:'), { method: 'POST' }, (res) => {
        res.resume();
        resolve(`answered ${res.statusCode}`);
      });
      req.on('error', (err) => resolve(`failed: ${err.message}`));
      req.end('{}');
    });
    assert.match(plain, /^failed/, 'a plain HTTP request gets no HTTP answer');
  });

  it('drops a connection that never finishes its TLS handshake', {
    skip: heavyOnly,
  }, async () => {
    const started = Date.now();
    const socket = connect(server.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.on('connect', resolve));
    socket.write(Buffer.from([0x16, 0x03, 0x01])); // the start of a ClientHello, and no more
    await new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const elapsed = Date.now() - started;
    // The proof deadline (2 s) comes before the handshake's 10 s; either drops it
    // (http-timeouts.test.ts and http-connections.test.ts time them).
    assert.ok(elapsed < 15_000, `dropped after ${elapsed} ms`);
  });

  it('refuses at start a key that is not the certificate’s, a missing file, or half the pair', async () => {
    const other = makeCertificate(dir, 'other');
    const mismatched = await runServe(
      ['--http', '127.0.0.1:0', '--tls-cert', pair.cert, '--tls-key', other.key],
      { AGENT_TTY_TOKEN: token },
    );
    assert.equal(mismatched.code, 1);
    assert.match(
      mismatched.stderr,
      /cannot serve HTTPS with --tls-cert \S+ and --tls-key \S+: key values mismatch \(/,
    );
    const missing = await runServe(
      ['--http', '127.0.0.1:0', '--tls-cert', join(dir, 'none.pem'), '--tls-key', pair.key],
      { AGENT_TTY_TOKEN: token },
    );
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read --tls-cert .*none\.pem: ENOENT/);
    const notPem = join(dir, 'not.pem');
    writeFileSync(notPem, 'hello\n');
    const garbage = await runServe(
      ['--http', '127.0.0.1:0', '--tls-cert', notPem, '--tls-key', pair.key],
      { AGENT_TTY_TOKEN: token },
    );
    assert.equal(garbage.code, 1);
    assert.match(garbage.stderr, /cannot serve HTTPS with --tls-cert/);
    assert.doesNotMatch(garbage.stderr, /PRIVATE KEY/, 'the key is never shown');
    const half = await runServe(['--http', '127.0.0.1:0', '--tls-cert', pair.cert], {
      AGENT_TTY_TOKEN: token,
    });
    assert.equal(half.code, 1);
    assert.match(half.stderr, /HTTPS needs both --tls-cert .* and --tls-key/);
  });
});
