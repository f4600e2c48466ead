/**
 * What the HTTP transport refuses (spec/http.md): requests without the token, with a wrong one or
 * with anything in the query string (401, slowed after failures), from a foreign Origin or to a
 * rebinding Host (403), with a body over the bound (413); connections past the limit and clients
 * that send headers too slowly are dropped. A refused request runs nothing, which each test shows
 * against the same request let through; and the token never reaches the server's log. The slow
 * client waits out the 10 s bound in the heavy layer (test/helpers/layers.ts); npm test drops it
 * at a bound of 500 ms in test/integration/http-timeouts.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { type IncomingHttpHeaders, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  connectHttp,
  type HttpClient,
  type HttpServer,
  mcpHeaders,
  newToken,
  startHttpServer,
} from '../helpers/http-server.js';
import { heavyOnly } from '../helpers/layers.js';
import { settledWithin, sleep } from '../helpers/wait.js';

describe('HTTP transport: what it refuses', () => {
  const token = newToken();
  const dir = mkdtempSync(join(tmpdir(), 'agent-tty-http-security-'));
  let server: HttpServer;
  let client: HttpClient;
  let sessionId: string;
  let markers = 0;

  before(async () => {
    server = await startHttpServer({
      env: { AGENT_TTY_TOKEN: token },
      args: ['--log-level', 'debug'],
    });
    client = await connectHttp(server.url, token);
    sessionId = client.transport.sessionId as string;
  });
  after(async () => {
    await client.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A tools/call of terminal_start that creates a new marker file, on the client's MCP session:
   * its status, and whether it ran (the file exists once the server answered).
   */
  async function attempt(
    options: { headers?: Record<string, string>; url?: string; token?: string | null } = {},
  ): Promise<{ status: number; ran: boolean; headers: IncomingHttpHeaders }> {
    const marker = join(dir, `marker-${++markers}`);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: markers,
      method: 'tools/call',
      params: { name: 'terminal_start', arguments: { command: `touch ${marker}`, login: false } },
    });
    const response = await post(options.url ?? server.url, body, {
      ...mcpHeaders(options.token === null ? undefined : (options.token ?? token), {
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
      }),
      ...options.headers,
    });
    await sleep(200);
    return { status: response.status, ran: existsSync(marker), headers: response.headers };
  }

  it('runs the request with the token, Host and no Origin (the control)', async () => {
    const { status, ran } = await attempt();
    assert.equal(status, 200);
    assert.equal(ran, true, 'the same request, let through, runs');
  });

  it('answers 401 without a token, and runs nothing', async () => {
    const { status, ran, headers } = await attempt({ token: null });
    assert.equal(status, 401);
    assert.equal(headers['www-authenticate'], 'Bearer');
    assert.equal(ran, false);
  });

  it('answers any other path with 404 naming the endpoint and the header, as OAuth discovery finds', async () => {
    // What Claude Code asks for when registered without the header; it shows the last body.
    const probes: [string, string][] = [
      ['GET', '/.well-known/oauth-protected-resource/mcp'],
      ['GET', '/.well-known/oauth-authorization-server'],
      ['POST', '/register'],
      ['GET', '/'],
    ];
    for (const [method, path] of probes) {
      const res = await fetch(new URL(path, server.url), {
        method,
        ...(method === 'POST' ? { body: '{"client_name":"probe"}' } : {}),
      });
      assert.equal(res.status, 404, `${method} ${path}`);
      const { error } = (await res.json()) as { error: { message: string } };
      assert.match(error.message, /endpoint is \/mcp, and it takes no OAuth/, `${method} ${path}`);
      assert.match(error.message, /Authorization: Bearer TOKEN/, `${method} ${path}`);
    }
  });

  it('answers 401 to a wrong token, and runs nothing', async () => {
    const { status, ran, headers } = await attempt({ token: newToken() });
    assert.equal(status, 401);
    assert.match(headers['www-authenticate'] ?? '', /^Bearer error="invalid_token"/);
    assert.equal(ran, false);
  });

  it('answers 401 to a token in the query string, even beside a good header', async () => {
    const inQuery = await attempt({ token: null, url: `${server.url}?access_token=${token}` });
    assert.equal(inQuery.status, 401);
    assert.equal(inQuery.ran, false);
    const both = await attempt({ url: `${server.url}?token=${token}` });
    assert.equal(both.status, 401);
    assert.equal(both.ran, false);
  });

  it('answers 403 to a foreign Origin and to a rebinding Host, and runs nothing', async () => {
    const origin = await attempt({ headers: { origin: 'http://evil.example' } });
    assert.equal(origin.status, 403);
    assert.equal(origin.ran, false);
    // A name an attacker's DNS points at 127.0.0.1 arrives as the Host header.
    const host = await attempt({ headers: { host: `evil.example:${server.port}` } });
    assert.equal(host.status, 403);
    assert.equal(host.ran, false);
    const localhost = await attempt({ headers: { host: `localhost:${server.port}` } });
    assert.equal(localhost.status, 200, 'localhost with the port is let through');
    assert.equal(localhost.ran, true);
    const own = await attempt({ headers: { origin: `http://127.0.0.1:${server.port}` } });
    assert.equal(own.status, 200, 'its own origin is let through');
    assert.equal(own.ran, true);
  });

  it('answers 413 to a body over 10 MiB, declared or streamed, and the MCP session carries on', async () => {
    const big = `{"jsonrpc":"2.0","id":1,"method":"tools/list","pad":"${'x'.repeat(10 * 1024 * 1024)}"}`;
    const declared = await fetch(server.url, {
      method: 'POST',
      headers: mcpHeaders(token, { 'mcp-session-id': sessionId }),
      body: big,
    });
    assert.equal(declared.status, 413);
    const streamed = await fetch(server.url, {
      method: 'POST',
      headers: mcpHeaders(token, { 'mcp-session-id': sessionId }),
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit);
    assert.equal(streamed.status, 413);
    const listed = await client.call('terminal_list');
    assert.equal(listed.isError, false, 'the server and the MCP session carry on');
  });

  it('slows repeated failures down, not honest calls', async () => {
    // Each failure from an address doubles the wait of its next refusal, from 50 ms: the 7th in a
    // row waits 1.6 s or more (the doubling, and its cap at 2 s, are unit-tested on a fake clock
    // in test/unit/transport/http-auth.test.ts). The refusals of the tests before this one count
    // too, so it stops at the first refusal held a second or more, at the 7th at the latest.
    const times: number[] = [];
    while (times.length < 7 && !((times.at(-1) ?? 0) >= 1000)) {
      const t0 = performance.now();
      await fetch(server.url, { method: 'POST', headers: mcpHeaders(newToken()), body: '{}' });
      times.push(performance.now() - t0);
    }
    assert.ok(
      (times.at(-1) as number) >= 1000,
      `failure ${times.length} answered after ${times.at(-1)} ms`,
    );
    const t0 = performance.now();
    await client.client.listTools();
    const honest = performance.now() - t0;
    assert.ok(honest < 500, `an honest call took ${honest} ms`);
  });

  it('closes connections that never show the token, past 64 too, and keeps serving', async () => {
    // Unproven connections have places of their own, closed at the proof deadline (2 s) or
    // evicted oldest first past 64 (http-connections.test.ts times both on a fake clock).
    const closes: Promise<void>[] = [];
    const sockets = await Promise.all(
      Array.from({ length: 65 }, async () => {
        const socket = await openSocket(server.port);
        closes.push(new Promise<void>((resolve) => socket.once('close', () => resolve())));
        socket.on('error', () => undefined);
        return socket;
      }),
    );
    assert.equal((await client.call('terminal_list')).isError, false, 'served meanwhile');
    const closed = await settledWithin(Promise.all(closes), 30_000);
    for (const s of sockets) s.destroy();
    assert.ok(closed, 'every idle connection without the token was closed');
    assert.equal((await client.call('terminal_list')).isError, false);
  });

  it('drops a client that sends its headers a byte a second', {
    skip: heavyOnly,
  }, async () => {
    const socket = await openSocket(server.port);
    const t0 = performance.now();
    let received = '';
    socket.on('data', (d: Buffer) => {
      received += d.toString();
    });
    const closed = new Promise<number>((resolve) => {
      socket.on('close', () => resolve(performance.now() - t0));
    });
    socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`);
    const drip = setInterval(() => socket.writable && socket.write('x'), 1000);
    const elapsed = await closed;
    clearInterval(drip);
    // Without the token, the proof deadline (2 s) comes before the headers' 10 s; either drops
    // it (http-timeouts.test.ts and http-connections.test.ts time them).
    assert.ok(elapsed < 13_000, `dropped after ${Math.round(elapsed)} ms`);
    assert.match(received, /^HTTP\/1\.1 408 |^$/);
  });

  it('answers 429 past 16 requests open on one MCP session; others and later ones go on', async () => {
    // Requests whose body never ends hold their place as surely as a long call's stream does.
    const held = await Promise.all(
      Array.from({ length: 16 }, async () => {
        const socket = await openSocket(server.port);
        socket.write(
          [
            'POST /mcp HTTP/1.1',
            `Host: 127.0.0.1:${server.port}`,
            `Authorization: Bearer ${token}`,
            'Content-Type: application/json',
            'Accept: application/json, text/event-stream',
            `Mcp-Session-Id: ${sessionId}`,
            'Content-Length: 1000',
            '',
            '{"jsonrpc":',
          ].join('\r\n'),
        );
        return socket;
      }),
    );
    await sleep(200);
    const refused = await attempt();
    assert.equal(refused.status, 429);
    assert.equal(refused.ran, false, 'the refused call ran nothing');
    assert.equal(refused.headers['retry-after'], '1');
    const other = await connectHttp(server.url, token, 'another-client');
    assert.equal((await other.call('terminal_list')).isError, false, 'another MCP session goes on');
    await other.close();
    for (const socket of held) socket.destroy();
    await sleep(200);
    const after = await attempt();
    assert.equal(after.status, 200, 'the session takes requests again once they have gone');
    assert.equal(after.ran, true);
  });

  it('never writes the token to its log', () => {
    assert.ok(server.stderr().includes('refused a request'), 'the refusals were logged');
    assert.equal(server.stderr().includes(token), false, server.stderr());
  });
});

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
  });
}

/** A POST with node:http, which (unlike fetch) sends the Host header it is given. */
function post(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
