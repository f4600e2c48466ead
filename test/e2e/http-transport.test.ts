/**
 * MCP over Streamable HTTP (spec/http.md) end to end: the SDK's Client drives a bash session
 * through `agent-tty serve --http`; terminals belong to the server, so a second client finds and
 * continues them; a client whose MCP session the server does not know (after a restart) gets 404
 * saying why; SIGTERM closes every session as on stdio. The tests run side by side, each with a
 * server of its own.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  connectHttp,
  type HttpServer,
  mcpHeaders,
  newToken,
  startHttpServer,
} from '../helpers/http-server.js';
import { isAlive, waitGone } from '../helpers/processes.js';
import { EXIT_BOUND_MS } from '../helpers/raw-rpc.js';
import { screenText } from '../helpers/tool-calls.js';
import { sleep } from '../helpers/wait.js';

// Side by side: each test has a server of its own, and most of their time is waiting.
describe('MCP over HTTP', { concurrency: true }, () => {
  const token = newToken();
  const servers: HttpServer[] = [];
  const start = async () => {
    const server = await startHttpServer({ env: { AGENT_TTY_TOKEN: token } });
    servers.push(server);
    return server;
  };
  after(async () => {
    for (const s of servers) if (s.child.exitCode === null) await s.stop();
  });

  it('runs a bash session: start, input, snapshot, list, close', async () => {
    const server = await start();
    const c = await connectHttp(server.url, token);
    const { id } = await c.start({ shell: '/bin/bash', login: false });
    const typed = await c.input(id, [
      { type: 'text', text: 'echo $((6*7))' },
      { type: 'key', key: 'Enter' },
    ]);
    assert.equal(typed.isError, false, typed.text);
    const screen = await c.waitFor(id, (s) => screenText(s).includes('\n42'));
    assert.match(screenText(screen), /^42$/m);
    const listed = await c.call('terminal_list');
    assert.deepEqual(
      listed.data.sessions?.map((s) => [s.sessionId, s.status]),
      [[id, 'running']],
    );
    const closed = await c.call('terminal_close', { sessionId: id });
    assert.equal(closed.isError, false, closed.text);
    assert.deepEqual((await c.call('terminal_list')).data.sessions, []);
    assert.match(
      server.stderr(),
      /a terminal no tool call names for 24 h is closed/,
      'serve --http closes unused terminals after a day by default, and says so',
    );
    await c.close();
  });

  it('closes a terminal nobody names for --idle-timeout, and says so to the next call', async () => {
    const server = await startHttpServer({
      env: { AGENT_TTY_TOKEN: token },
      args: ['--idle-timeout', '1000'],
    });
    servers.push(server);
    const c = await connectHttp(server.url, token);
    const { id } = await c.start({ command: 'cat', login: false, settleMs: 0 });
    await c.transport.close();
    const back = await connectHttp(server.url, token);
    // terminal_list names no session: asking it leaves the idle time running.
    const deadline = Date.now() + 20_000;
    while ((await back.call('terminal_list')).data.sessions?.length !== 0) {
      assert.ok(Date.now() < deadline, `session ${id} was closed once idle`);
      await sleep(100);
    }
    const gone = await back.call('terminal_snapshot', { sessionId: id, settleMs: 0 });
    assert.equal(gone.data.error?.code, 'SESSION_NOT_FOUND');
    assert.match(gone.text, /idle/);
    await back.close();
  });

  it('does not pass AGENT_TTY_TOKEN to the programs it runs', async () => {
    const server = await start();
    const c = await connectHttp(server.url, token);
    // The environment goes to a file, not the screen: a CI runner's environment can be longer
    // than the screen is tall.
    const dir = mkdtempSync(join(tmpdir(), 'agent-tty-env-'));
    const file = join(dir, 'env');
    try {
      const { id } = await c.start({ command: `env > ${file}; echo env-done`, login: false });
      const screen = await c.waitFor(id, (s) => screenText(s).includes('env-done'));
      const printed = readFileSync(file, 'utf8');
      assert.match(printed, /^PATH=/m, 'the environment was written');
      assert.doesNotMatch(printed, /AGENT_TTY_TOKEN/);
      assert.equal(printed.includes(token), false);
      assert.equal(JSON.stringify(screen).includes(token), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await c.close();
  });

  it('keeps terminals for the next client: python3 state survives the client', async () => {
    const server = await start();
    const a = await connectHttp(server.url, token, 'client-a');
    const { id } = await a.start({ command: 'python3 -q', login: false });
    await a.input(id, [
      { type: 'text', text: 'x = 41' },
      { type: 'key', key: 'Enter' },
    ]);
    // Client A goes away without a word (as a killed client does): its connection drops.
    await a.transport.close();
    const b = await connectHttp(server.url, token, 'client-b');
    const listed = await b.call('terminal_list');
    assert.deepEqual(
      listed.data.sessions?.map((s) => [s.sessionId, s.client]),
      [[id, 'client-a']],
      'the list says which client started the session',
    );
    assert.match(listed.text, /started by "client-a"/);
    const own = await b.start({ command: 'cat', login: false, settleMs: 0 });
    const mine = await b.call('terminal_list');
    assert.equal(mine.data.sessions?.find((s) => s.sessionId === own.id)?.client, 'client-b');
    assert.equal(
      mine.text
        .split('\n')
        .find((line) => line.startsWith(`${own.id} `))
        ?.includes('started by'),
      false,
      'a session the caller started does not name its starter in the text',
    );
    await b.input(id, [
      { type: 'text', text: 'x + 1' },
      { type: 'key', key: 'Enter' },
    ]);
    const screen = await b.waitFor(id, (s) => /^42$/m.test(screenText(s)));
    assert.match(screenText(screen), /^42$/m);
    await b.close();
  });

  it('finishes a batch whose client dropped mid-call; the next client sees its outcome', async () => {
    const server = await start();
    const a = await connectHttp(server.url, token, 'client-a');
    const { id } = await a.start({ shell: '/bin/bash', login: false });
    const call = a
      .input(id, [
        { type: 'text', text: 'sleep 1; echo first-done' },
        { type: 'key', key: 'Enter' },
        { type: 'wait', pattern: '^first-done', timeoutMs: 10_000 },
        { type: 'text', text: 'echo second-$((20+22))' },
        { type: 'key', key: 'Enter' },
      ])
      .catch((err: unknown) => err);
    await new Promise((r) => setTimeout(r, 300));
    await a.transport.close();
    await call;
    const b = await connectHttp(server.url, token, 'client-b');
    const screen = await b.waitFor(id, (s) => /^second-42$/m.test(screenText(s)));
    assert.match(screenText(screen), /^first-done$/m);
    await b.close();
  });

  it('ends the waits after the last input of a batch no one can read, so the next call need not wait', async () => {
    const server = await start();
    const a = await connectHttp(server.url, token, 'client-a');
    const { id } = await a.start({ shell: '/bin/bash', login: false });
    const call = a
      .input(id, [
        { type: 'text', text: 'echo one-$((1+1))' },
        { type: 'key', key: 'Enter' },
        { type: 'wait', pattern: '^never-printed$', timeoutMs: 20_000, stopOnInput: false },
      ])
      .catch((err: unknown) => err);
    await new Promise((r) => setTimeout(r, 500));
    await a.transport.close();
    await call;
    const b = await connectHttp(server.url, token, 'client-b');
    const t0 = performance.now();
    const typed = await b.input(id, [
      { type: 'text', text: 'echo two-$((1+1))' },
      { type: 'key', key: 'Enter' },
    ]);
    const waited = performance.now() - t0;
    assert.equal(typed.isError, false, typed.text);
    assert.ok(
      waited < 5000,
      `the next call waited ${Math.round(waited)} ms behind the dropped wait`,
    );
    const screen = await b.waitFor(id, (s) => /^two-2$/m.test(screenText(s)));
    assert.match(screenText(screen), /^one-2$/m, "the dropped call's input was all sent");
    await b.close();
  });

  it('answers an MCP session it does not know with 404 saying the server restarted', async () => {
    const server = await start();
    const c = await connectHttp(server.url, token);
    const sessionId = c.transport.sessionId as string;
    assert.ok(sessionId, 'the server gave an MCP session id');
    await server.stop();
    const again = await startHttpServer({
      env: { AGENT_TTY_TOKEN: token },
      address: `127.0.0.1:${server.port}`,
    });
    servers.push(again);
    const res = await fetch(again.url, {
      method: 'POST',
      headers: mcpHeaders(token, { 'mcp-session-id': sessionId }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    });
    assert.equal(res.status, 404);
    const body = (await res.json()) as { error: { message: string } };
    assert.match(body.error.message, /server was restarted/);
    // The SDK client sees the 404 too; a client that initializes again works.
    await assert.rejects(c.client.listTools(), (err: unknown) => {
      return err instanceof StreamableHTTPError && err.code === 404;
    });
    // An initialize that still carries the old id starts a new MCP session.
    const init = await fetch(again.url, {
      method: 'POST',
      headers: mcpHeaders(token, { 'mcp-session-id': sessionId }),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'stale', version: '1' },
        },
      }),
    });
    assert.equal(init.status, 200);
    const newId = init.headers.get('mcp-session-id');
    assert.ok(newId && newId !== sessionId, 'a new MCP session id');
    await init.arrayBuffer();
    const fresh = await connectHttp(again.url, token);
    assert.equal((await fresh.client.listTools()).tools.length, 6);
    await fresh.close();
  });

  it('answers server/discover with method not found, so a client that probes with it initializes', async () => {
    const server = await start();
    const res = await fetch(server.url, {
      method: 'POST',
      headers: mcpHeaders(token, { 'mcp-protocol-version': '2026-07-28' }),
      body: JSON.stringify({ jsonrpc: '2.0', id: 'probe-1', method: 'server/discover' }),
    });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { id: unknown; error: { code: number } };
    assert.deepEqual([body.id, body.error.code], ['probe-1', -32601]);
    // Any other request without an MCP session is still 400.
    const other = await fetch(server.url, {
      method: 'POST',
      headers: mcpHeaders(token),
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(other.status, 400);
    await other.arrayBuffer();
    const c = await connectHttp(server.url, token);
    assert.equal((await c.client.listTools()).tools.length, 6);
    await c.close();
  });

  it('closes every session on SIGTERM and exits 0', async () => {
    const server = await start();
    const c = await connectHttp(server.url, token);
    await c.start({ command: 'sleep 600', login: false, settleMs: 0 });
    const pid = (await c.call('terminal_list')).data.sessions?.[0]?.pid as number;
    assert.ok(isAlive(pid), 'the session runs');
    const t0 = Date.now();
    assert.equal(await server.stop(), 0);
    // "It did not hang": the 1 s shutdown is timed on a fake clock in the unit tests.
    assert.ok(Date.now() - t0 < EXIT_BOUND_MS, `exited in ${Date.now() - t0} ms`);
    assert.deepEqual(await waitGone([pid]), [], 'the session is gone');
  });
});
