/**
 * MCP sessions of the HTTP transport in-process, over a tiny MCP server whose `block` tool runs
 * until the test lets it go (issue 35, S6): a session with a call running is never evicted nor
 * expired, an idle one expires after its idle time on a fake clock and its client then gets a
 * prompt 404 with -32001, and a request id reused while its call runs is refused with -32600.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { parseHttpAddress } from '../../../src/shared/http-address.js';
import { silentLogger } from '../../../src/shared/log.js';
import { HTTP_LIMITS, HttpMcpServer } from '../../../src/transport/http-server.js';
import { FakeClock } from '../../helpers/fakes.js';
import { mcpHeaders, newToken } from '../../helpers/http-server.js';
import { settledWithin } from '../../helpers/wait.js';

const IDLE_MS = 3_600_000;

/** Every `block` call waits here until release(). */
let releases: (() => void)[] = [];
let echoCalls = 0;
const releaseAll = () => {
  for (const release of releases) release();
  releases = [];
};

function newEndpoint() {
  const server = new McpServer({ name: 'sessions-test', version: '1' });
  server.registerTool('block', { description: 'waits for the test' }, async () => {
    await new Promise<void>((resolve) => releases.push(resolve));
    return { content: [{ type: 'text', text: 'released' }] };
  });
  server.registerTool('echo', { description: 'answers at once' }, async () => {
    echoCalls++;
    return { content: [{ type: 'text', text: 'echo' }] };
  });
  return server.server;
}

describe('HTTP transport: MCP sessions', () => {
  const token = newToken();
  const clock = new FakeClock();
  let http: HttpMcpServer;
  let url: string;

  before(async () => {
    http = await HttpMcpServer.listen({
      address: parseHttpAddress('127.0.0.1:0'),
      token,
      newEndpoint,
      logger: silentLogger,
      clock,
      limits: { ...HTTP_LIMITS, maxMcpSessions: 3, mcpSessionIdleMs: IDLE_MS },
    });
    url = `http://127.0.0.1:${http.port}/mcp`;
  });
  after(async () => {
    releaseAll();
    await http.close();
  });

  const transports: StreamableHTTPClientTransport[] = [];
  async function connect(name: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    transports.push(transport);
    const client = new Client({ name, version: '1' });
    await client.connect(transport);
    return client;
  }
  /** Ends every MCP session a test opened (DELETE), so the next starts with room. */
  async function endSessions(): Promise<void> {
    for (const t of transports.splice(0)) {
      await t.terminateSession().catch(() => undefined);
      await t.close();
    }
  }

  /** The call's outcome, or 'no answer' if none came within 10 s (it would never come). */
  async function outcome(call: Promise<unknown>): Promise<unknown> {
    const settled = await settledWithin(
      call.catch((err: Error) => `error: ${err.message}`),
      10_000,
    );
    return settled ?? 'no answer';
  }

  const blockedCount = () => releases.length;
  async function untilBlocked(n: number): Promise<void> {
    for (let i = 0; i < 500 && blockedCount() < n; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(blockedCount(), n, 'the calls are running');
  }

  it('never evicts a session whose call runs; an evicted idle one gets 404 -32001 at once', async () => {
    const idle = await connect('idle');
    const busy = await connect('busy');
    const call = busy.callTool({ name: 'block' }, undefined, { timeout: 60_000 });
    await untilBlocked(1);
    // Many initializes (health checks, restarts): more than maxMcpSessions.
    const others = [];
    for (let i = 0; i < 6; i++) others.push(await connect(`other-${i}`));
    releaseAll();
    assert.deepEqual(await outcome(call), {
      content: [{ type: 'text', text: 'released' }],
    });
    const evicted = await outcome(idle.callTool({ name: 'echo' }));
    assert.match(String(evicted), /^error: .*404.*-32001|^error: .*MCP session not found/s);
    assert.equal(others.length, 6);
    await endSessions();
  });

  it('refuses a new session while every one has a call running, with 503', async () => {
    const busy = [await connect('b1'), await connect('b2'), await connect('b3')];
    const calls = busy.map((c) => c.callTool({ name: 'block' }, undefined, { timeout: 60_000 }));
    await untilBlocked(3);
    await assert.rejects(connect('one too many'), (err: { code?: number }) => err.code === 503);
    releaseAll();
    for (const call of calls) assert.notEqual(await outcome(call), 'no answer');
    await endSessions();
  });

  it('ends a session idle for the idle time (fake clock), never one with a call running', async () => {
    const gone = await connect('gone');
    // A client that quits without DELETE (as Claude Code does): its notification stream closes.
    const goneId = transports.at(-1)?.sessionId as string;
    await gone.close();
    const busy = await connect('busy');
    const call = busy.callTool({ name: 'block' }, undefined, { timeout: 60_000 });
    await untilBlocked(1);
    const ping = () =>
      fetch(url, {
        method: 'POST',
        headers: mcpHeaders(token, {
          'mcp-session-id': goneId,
          'mcp-protocol-version': '2025-06-18',
        }),
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
    await clock.advance(IDLE_MS - 1000);
    const kept = await ping();
    await kept.text();
    assert.equal(kept.status, 200, 'kept until its idle time');
    await clock.advance(IDLE_MS + 60_000);
    const expired = await ping();
    assert.equal(expired.status, 404, 'ended once idle that long');
    assert.equal(((await expired.json()) as { error: { code: number } }).error.code, -32001);
    releaseAll();
    assert.deepEqual(await outcome(call), { content: [{ type: 'text', text: 'released' }] });
    await endSessions();
  });

  describe('request ids', () => {
    let headers: Record<string, string>;

    before(async () => {
      const init = await fetch(url, {
        method: 'POST',
        headers: mcpHeaders(token),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'raw', version: '1' },
          },
        }),
      });
      await init.text();
      headers = mcpHeaders(token, {
        'mcp-session-id': init.headers.get('mcp-session-id') as string,
        'mcp-protocol-version': '2025-06-18',
      });
      const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
      await (
        await fetch(url, { method: 'POST', headers, body: JSON.stringify(initialized) })
      ).text();
    });

    const call = (id: number, name: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: {} },
    });
    const post = (body: unknown) =>
      fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });

    it('refuses an id reused while its call runs (-32600); the first still gets its answer', async () => {
      const first = post(call(7, 'block'));
      const firstReply = first.then((res) => res.text());
      await untilBlocked(1);
      const second = await post(call(7, 'echo'));
      assert.equal(second.status, 400);
      const refusal = (await second.json()) as { error: { code: number } };
      assert.equal(refusal.error.code, -32600);
      releaseAll();
      const text = String(await outcome(firstReply));
      assert.match(text, /"id":7/);
      assert.match(text, /released/);
      // Answered: the id is free again.
      assert.equal((await post(call(7, 'echo'))).status, 200);
    });

    it('refuses a batch with two equal ids, running none of it', async () => {
      const before = echoCalls;
      const res = await post([call(9, 'echo'), call(9, 'echo')]);
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as { error: { code: number } }).error.code, -32600);
      assert.equal(echoCalls, before, 'nothing of it ran');
    });
  });
});
