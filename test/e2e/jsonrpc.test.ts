/**
 * The stdio JSON-RPC layer, driven over raw lines: every line with an id gets exactly one reply
 * (parse errors -32700, invalid requests -32600/-32602), an over-long line costs one request and
 * never the connection, a client that stops reading cannot grow the server without bound,
 * duplicate in-flight ids are refused so a cancel stops the one request, and error texts show
 * client-supplied values safely. Contract: spec/guarantees.md (Protocol).
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { cpuTicks, rssKiB } from '../helpers/processes.js';
import { type RawRpcServer, type RpcReply, startRawRpcServer } from '../helpers/raw-rpc.js';
import { sleep } from '../helpers/wait.js';

const MiB = 1024 * 1024;
/** Snapshot requests a stalled client sends; each reply is ~2.2 MB. */
const REQUESTS = 40;
/** 16 requests in flight and 1 MiB of unread replies (spec/guarantees.md, Bounds), plus the server itself. */
const RSS_BOUND_KIB = 400 * 1024;

interface WireReply {
  id: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** Replies that answered no request of the helper's own (raw lines' replies), parsed. */
function strayReplies(server: RawRpcServer): WireReply[] {
  return server.strays().map((line) => JSON.parse(line) as WireReply);
}

/** Every string inside `value` (keys too). */
function allStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) => [key, ...allStrings(item)]);
}

/** C0, DEL, C1 and the bidirectional embeddings and overrides. */
function isHidden(cp: number): boolean {
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e);
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no reply within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits until `count` stray replies satisfy `match`; fails after `ms`. */
async function strayCount(
  server: RawRpcServer,
  match: (reply: WireReply) => boolean,
  count: number,
  ms = 5000,
): Promise<WireReply[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = strayReplies(server).filter(match);
    if (found.length >= count) return found;
    if (Date.now() > deadline || !server.isRunning()) {
      throw new Error(
        `expected ${count} replies, got ${found.length}; running: ${server.isRunning()}; stderr: ${server.stderr().slice(-300)}`,
      );
    }
    await sleep(20);
  }
}

async function startCat(server: RawRpcServer): Promise<string> {
  const start = await server.tool('terminal_start', {
    command: 'cat',
    shell: '/bin/sh',
    login: false,
  });
  assert.equal(start.isError, undefined, JSON.stringify(start));
  return start.structuredContent?.sessionId as string;
}

describe('stdio JSON-RPC', () => {
  // A server each: one test's failure (the server gone) must not decide the next one's.
  let server: RawRpcServer;
  beforeEach(async () => {
    server = await startRawRpcServer();
  });
  afterEach(() => server.stop());

  it('answers an over-long line with one error and keeps every session', {
    timeout: 60_000,
  }, async () => {
    const id = await startCat(server);
    // The SDK's client serializes the id last; JSON.stringify of a plain object puts it first.
    const text = 'x'.repeat(11 * MiB);
    const idLast = `{"method":"tools/call","params":{"name":"terminal_input","arguments":{"sessionId":"${id}","actions":[{"type":"text","text":"${text}"}]}},"jsonrpc":"2.0","id":1000001}`;
    server.writeLine(idLast);
    const [tooLong] = await strayCount(server, (r) => r.id === 1000001, 1, 20_000);
    assert.equal(tooLong?.error?.code, -32600, JSON.stringify(tooLong));
    assert.match(tooLong?.error?.message ?? '', /10 MiB line limit/);
    server.writeLine(`{"jsonrpc":"2.0","id":"big-2","method":"ping","params":{"pad":"${text}"}}`);
    await strayCount(server, (r) => r.id === 'big-2' && r.error?.code === -32600, 1, 20_000);
    // No id to recover: the error names none.
    server.writeLine(`[${'1,'.repeat(6 * MiB)}1]`);
    await strayCount(server, (r) => r.id === null && r.error?.code === -32600, 1, 20_000);
    // Discarded as it streams: memory grows by less than the line (36 MiB measured: the first
    // 10 MiB are held until the line passes the limit).
    const before = rssKiB(server.pid);
    let peak = before ?? 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssKiB(server.pid) ?? 0);
    }, 20);
    server.writeLine(
      `{"jsonrpc":"2.0","id":1000003,"method":"ping","params":{"pad":"${'y'.repeat(64 * MiB)}"}}`,
    );
    await strayCount(server, (r) => r.id === 1000003, 1, 30_000);
    clearInterval(sampler);
    if (before !== undefined) {
      assert.ok(peak - before < 60 * 1024, `RSS grew ${peak - before} KiB for a 64 MiB line`);
    }
    const list = await within(server.tool('terminal_list', {}), 10_000, 'terminal_list');
    const sessions = (list.structuredContent?.sessions ?? []) as { sessionId: string }[];
    assert.deepEqual(
      sessions.map((s) => s.sessionId),
      [id],
    );
    const input = await server.tool('terminal_input', {
      sessionId: id,
      actions: [{ type: 'text', text: 'still here' }],
    });
    assert.deepEqual(
      (input.structuredContent?.snapshot as { screen: string[] } | undefined)?.screen[0],
      'still here',
    );
    assert.ok(server.isRunning());
    await server.tool('terminal_close', { sessionId: id });
  });

  it('answers every line with an id exactly once, and never a notification', {
    timeout: 30_000,
  }, async () => {
    const before = server.strays().length;
    const init = (extra: string) => `{"jsonrpc":"2.0","method":"tools/list"${extra}}`;
    // [line, expected reply: id and code (0 = a result)]
    const cases: [string, unknown, number][] = [
      [init(',"id":2000001,"params":{"_meta":{"progressToken":{}}}'), 2000001, -32602],
      [init(',"id":2000002,"params":{"_meta":{"progressToken":true}}'), 2000002, -32602],
      [init(',"id":2000003,"params":{"_meta":{"progressToken":1.5}}'), 2000003, -32602],
      [init(',"id":2000004,"params":{"_meta":"x"}'), 2000004, -32602],
      [init(',"id":2000005,"params":[1,2]'), 2000005, -32602],
      [init(',"id":2000006,"params":"x"'), 2000006, -32600],
      [init(',"id":2000007,"params":null'), 2000007, -32600],
      [init(',"id":2000008,"extra":true'), 2000008, 0],
      [init(',"id":"s-9","params":{"_meta":{"progressToken":"ok"}}'), 's-9', 0],
      ['{"jsonrpc":"1.0","id":2000010,"method":"tools/list"}', 2000010, -32600],
      ['{"jsonrpc":"2.0","id":2000011,"method":7}', 2000011, -32600],
      ['{"jsonrpc":"2.0","id":2000012}', 2000012, -32600],
      [init(',"id":1.5'), null, -32600],
      [init(',"id":1e308'), null, -32600],
      [init(',"id":null'), null, -32600],
      [init(',"id":{"a":1}'), null, -32600],
      ['{"jsonrpc":"2.0","id":2000013,', null, -32700],
      ['not json', null, -32700],
      ['[]', null, -32600],
      ['[{"jsonrpc":"2.0","id":2000014,"method":"ping"}]', null, -32600],
      ['42', null, -32600],
      ['{"jsonrpc":"2.0"}', null, -32600],
      // Notifications, valid or not, are never answered.
      ['{"jsonrpc":"2.0","method":"notifications/nothing","params":"bad"}', undefined, 0],
      [
        '{"jsonrpc":"2.0","method":"notifications/nothing","params":{"_meta":{"progressToken":{}}}}',
        undefined,
        0,
      ],
      ['{"jsonrpc":"2.0","method":"notifications/nothing"}', undefined, 0],
      ['', undefined, 0],
    ];
    for (const [line] of cases) server.writeLine(line);
    // Replies to bad lines are written at once; a result comes after its handler runs.
    const barrier = await within(server.request('ping', {}), 5000, 'ping after the lines');
    assert.equal(barrier.error, undefined);
    const expected = cases.filter(([, id]) => id !== undefined);
    await strayCount(server, () => true, before + expected.length).catch((err: Error) => {
      const got = strayReplies(server).slice(before);
      const shown = got.map((r) => JSON.stringify(r).slice(0, 160));
      throw new Error(`${err.message.slice(0, 200)}\n${shown.join('\n')}`);
    });
    await sleep(300);
    const got = strayReplies(server).slice(before);
    const shown = got.map((r) => JSON.stringify(r).slice(0, 160)).join('\n');
    assert.equal(got.length, expected.length, shown);
    for (const [line, id, code] of expected) {
      const index = got.findIndex((r) => r.id === id && (r.error?.code ?? 0) === code);
      assert.ok(index !== -1, `no reply {id: ${id}, code: ${code}} to ${line}`);
      got.splice(index, 1);
    }
    assert.deepEqual(server.unanswered(), []);
    assert.ok(server.isRunning());
  });

  it('refuses a request id already in flight, so a cancel stops the one request', {
    timeout: 30_000,
  }, async () => {
    const id = await startCat(server);
    const waitLine = `{"jsonrpc":"2.0","id":3000001,"method":"tools/call","params":{"name":"terminal_input","arguments":{"sessionId":"${id}","actions":[{"type":"wait","durationMs":8000}]}}}`;
    server.writeLine(waitLine);
    server.writeLine(waitLine);
    const [refused] = await strayCount(server, (r) => r.id === 3000001, 1, 3000);
    assert.equal(refused?.error?.code, -32600, JSON.stringify(refused));
    assert.match(refused?.error?.message ?? '', /request id 3000001 is already in use/);
    server.notify('notifications/cancelled', { requestId: 3000001, reason: 'test' });
    const started = performance.now();
    const next = await server.tool('terminal_input', {
      sessionId: id,
      actions: [{ type: 'text', text: 'next' }],
    });
    const ms = performance.now() - started;
    assert.equal(next.isError, undefined, JSON.stringify(next));
    assert.ok(ms < 4000, `the session queue was held ${Math.round(ms)} ms after the cancel`);
    await sleep(200);
    const forId = strayReplies(server).filter((r) => r.id === 3000001);
    assert.equal(forId.length, 1, 'the cancelled request gets no reply of its own');
    // The id is free again once nothing uses it.
    const reuse = `{"jsonrpc":"2.0","id":3000001,"method":"ping"}`;
    server.writeLine(reuse);
    const replies = await strayCount(server, (r) => r.id === 3000001, 2);
    assert.deepEqual(replies[1]?.result, {});
    await server.tool('terminal_close', { sessionId: id });
  });

  it('frames lines as the spec says: CRLF, a character split across reads, 10 MiB exactly and one byte past, batches, "8" apart from 8', {
    timeout: 60_000,
  }, async () => {
    const write = (text: string | Buffer) => server.child.stdin.write(text);
    const reply = async (id: unknown) => (await strayCount(server, (r) => r.id === id, 1))[0];
    // A line ended by CRLF is a line.
    write('{"jsonrpc":"2.0","id":"crlf","method":"ping"}\r\n');
    assert.deepEqual((await reply('crlf'))?.result, {});
    // A character cut between two reads is decoded whole: the error quotes the id it was sent.
    const line = Buffer.from(
      '{"jsonrpc":"2.0","id":"utf8","method":"tools/call","params":{"name":"terminal_snapshot","arguments":{"sessionId":"é€😀"}}}\n',
    );
    const cut = line.indexOf(Buffer.from('😀')) + 2;
    write(line.subarray(0, cut));
    await sleep(100);
    write(line.subarray(cut));
    const text = JSON.stringify((await reply('utf8'))?.result);
    assert.match(text, /session \\"é€😀\\" not found/);
    // The line limit is 10 MiB of UTF-8, the newline aside: that much is read, a byte more is not.
    const padded = (id: string, bytes: number) => {
      const head = `{"jsonrpc":"2.0","id":"${id}","method":"ping","params":{"pad":"`;
      return `${head}${'x'.repeat(bytes - head.length - 3)}"}}\n`;
    };
    for (const [id, bytes] of [
      ['under', 10 * MiB - 1],
      ['exact', 10 * MiB],
      ['over', 10 * MiB + 1],
    ] as const) {
      const message = padded(id, bytes);
      assert.equal(Buffer.byteLength(message), bytes + 1);
      write(message);
      const answer = await reply(id);
      if (id === 'over') {
        assert.equal(answer?.error?.code, -32600, JSON.stringify(answer));
        assert.match(answer?.error?.message ?? '', /10 MiB line limit/);
      } else assert.deepEqual(answer?.result, {}, `${id}: ${JSON.stringify(answer)}`);
    }
    // A batch is refused as a whole, and nothing in it runs.
    write(
      '[{"jsonrpc":"2.0","id":"in-batch","method":"tools/call","params":{"name":"terminal_start","arguments":{"command":"sleep 60"}}}]\n',
    );
    await strayCount(server, (r) => r.id === null && r.error?.code === -32600, 1);
    // 8 and "8" are two ids: each is taken while the other is in flight, and cancelling "8"
    // leaves 8 alone.
    const id = await startCat(server);
    while ((await server.request('ping')).id < 8);
    const wait = (json: string) =>
      `{"jsonrpc":"2.0","id":${json},"method":"tools/call","params":{"name":"terminal_input","arguments":{"sessionId":"${id}","actions":[{"type":"wait","durationMs":500}]}}}\n`;
    write(wait('8'));
    write(wait('"8"'));
    server.notify('notifications/cancelled', { requestId: '8', reason: 'test' });
    const eight = await reply(8);
    assert.equal(eight?.error, undefined, JSON.stringify(eight));
    assert.equal(eight?.result?.isError, undefined, JSON.stringify(eight));
    // The session runs its batches one at a time, in order: once a batch sent after "8" has
    // been answered, "8" has either been answered too or never ran.
    const behind = await server.tool('terminal_input', {
      sessionId: id,
      actions: [{ type: 'wait', durationMs: 1 }],
    });
    assert.equal(behind.isError, undefined, JSON.stringify(behind));
    assert.deepEqual(
      strayReplies(server)
        .filter((r) => r.id === 8 || r.id === '8' || r.id === 'in-batch')
        .map((r) => r.id),
      [8],
      'one reply, to 8 only',
    );
    const listed = await server.tool('terminal_list', {});
    const sessions = (listed.structuredContent?.sessions ?? []) as { sessionId: string }[];
    assert.deepEqual(
      sessions.map((s) => s.sessionId),
      [id],
      'the batch started nothing',
    );
    await server.tool('terminal_close', { sessionId: id });
  });

  it('shows client-supplied ids and names safely in error texts', async () => {
    const hostile = 't\u001b[31m\u202e9';
    const reply = await server.tool('terminal_snapshot', { sessionId: hostile });
    assert.equal(reply.structuredContent?.error?.code, 'SESSION_NOT_FOUND');
    const unknownField = await server.tool('terminal_list', { [`x${hostile}`]: 1 });
    assert.equal(unknownField.structuredContent?.error?.code, 'INVALID_ARGUMENT');
    const unknownTool = await server.request('tools/call', { name: hostile, arguments: {} });
    assert.ok(unknownTool.error);
    const id = await startCat(server);
    const hostileId = JSON.stringify(`d${hostile}`);
    server.writeLine(
      `{"jsonrpc":"2.0","id":${hostileId},"method":"tools/call","params":{"name":"terminal_input","arguments":{"sessionId":"${id}","actions":[{"type":"wait","durationMs":1000}]}}}`,
    );
    server.writeLine(`{"jsonrpc":"2.0","id":${hostileId},"method":"ping"}`);
    const [duplicate] = await strayCount(server, (r) => r.id === `d${hostile}`, 1);
    const texts: string[] = [
      ...[reply, unknownField].flatMap((r) => [
        r.content?.[0]?.text ?? '',
        ...allStrings(r.structuredContent),
      ]),
      unknownTool.error?.message ?? '',
    ];
    // The error a duplicate id gets quotes the id (a ping's own reply would be {}).
    if (duplicate?.error) texts.push(duplicate.error.message);
    for (const text of texts) {
      const raw = [...text].find((c) => isHidden(c.codePointAt(0) as number));
      assert.equal(raw, undefined, `a raw control or bidi character in: ${JSON.stringify(text)}`);
    }
    assert.match(reply.content?.[0]?.text ?? '', /session "t\u241b\[31m\uFFFD9" not found/);
    assert.equal(duplicate?.error?.code, -32600, 'the duplicate id was refused');
    await server.tool('terminal_close', { sessionId: id });
  });
});

describe('stdio JSON-RPC with a client that stops reading', () => {
  let server: RawRpcServer;
  before(async () => {
    server = await startRawRpcServer();
  });
  after(() => server.stop());

  it('bounds what waits for the client, then answers every request once it reads', {
    timeout: 300_000,
  }, async (t) => {
    if (rssKiB(server.pid) === undefined) {
      t.skip('needs /proc to read the server memory');
      return;
    }
    const start = await server.tool('terminal_start', {
      command: `seq -f '%0500g' 1 2400; exec sleep 1000`,
      shell: '/bin/sh',
      login: false,
      cols: 500,
      rows: 200,
      settleTimeoutMs: 20_000,
    });
    const id = start.structuredContent?.sessionId as string;
    const args = { sessionId: id, scrollbackLines: 2000, settleMs: 0 };
    const first = await server.tool('terminal_snapshot', args);
    const replyBytes = JSON.stringify(first).length;
    assert.ok(replyBytes > 2 * MiB, `a reply is ${replyBytes} bytes`);
    const baseline = rssKiB(server.pid) as number;
    server.child.stdout.pause();
    // Only the outcome is kept: a settled promise holds its value, and each reply is ~2 MB.
    const outcomes = Array.from({ length: REQUESTS }, () =>
      server
        .send('tools/call', { name: 'terminal_snapshot', arguments: args })
        .reply.then((r: RpcReply) => (r.error ? `error ${r.error.code}` : 'ok')),
    );
    // Until the server stops working (it waits for the client) or its memory passes the bound.
    let peak = baseline;
    let idleSamples = 0;
    let cpu = cpuTicks(server.pid);
    const deadline = Date.now() + 120_000;
    while (idleSamples < 8 && peak < RSS_BOUND_KIB && Date.now() < deadline) {
      await sleep(250);
      peak = Math.max(peak, rssKiB(server.pid) ?? 0);
      const now = cpuTicks(server.pid);
      idleSamples = now - cpu <= 2 ? idleSamples + 1 : 0;
      cpu = now;
    }
    assert.equal(server.isRunning(), true);
    assert.ok(peak < RSS_BOUND_KIB, `server RSS reached ${peak} KiB (from ${baseline} KiB)`);
    assert.equal(idleSamples, 8, 'the server waits for the client to read');
    server.child.stdout.resume();
    const settled = await Promise.all(outcomes);
    assert.deepEqual(
      settled.filter((o) => o !== 'ok'),
      [],
    );
    assert.equal(settled.length, REQUESTS);
    await server.tool('terminal_close', { sessionId: id });
  });
});
