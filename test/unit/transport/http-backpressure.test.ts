/**
 * The HTTP transport's back-pressure accounting (src/transport/http-backpressure.ts; spec/http.md,
 * Bounds): unsent reply bytes per MCP session and per server, the 429 and 503 refusals past
 * them, the connections closed past twice them, and the stand-ins for answers whose connection
 * closed. Fake replies whose unsent bytes the test sets; no time is involved.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  chunkBytes,
  type QueuedReply,
  ReplyBacklog,
  SSE_FRAMING_BYTES,
  STANDALONE,
} from '../../../src/transport/http-backpressure.js';

const LIMITS = { maxUnsentBytesPerSession: 100, maxUnsentBytesPerServer: 300 };

/** A reply whose unsent bytes are what was queued on it (Node never sends). */
function fakeReply(unsent = 0): QueuedReply & { closed: boolean; held: number } {
  const reply = {
    held: unsent,
    closed: false,
    get isOpen() {
      return !reply.closed;
    },
    unsent: () => (reply.closed ? 0 : reply.held),
    queue: (bytes: number) => {
      reply.held += bytes;
    },
    close: () => {
      reply.closed = true;
    },
  };
  return reply;
}

/** An answer to call `id` whose JSON is `size` bytes long. */
function answerOf(id: number, size: number): JSONRPCMessage {
  const empty = JSON.stringify({ jsonrpc: '2.0', id, result: { text: '' } }).length;
  return { jsonrpc: '2.0', id, result: { text: 'x'.repeat(size - empty) } };
}

describe('HTTP back-pressure: the accounting', () => {
  it('sums unsent bytes per MCP session and for the server, and forgets closed replies', () => {
    const backlog = new ReplyBacklog(LIMITS);
    const a = fakeReply(40);
    const b = fakeReply(30);
    const c = fakeReply(5);
    const forgetA = backlog.track('s1', a);
    backlog.track('s1', b);
    backlog.track('s2', c);
    backlog.track(undefined, fakeReply(1));
    assert.equal(backlog.sessionUnsent('s1'), 70);
    assert.equal(backlog.sessionUnsent('s2'), 5);
    assert.equal(backlog.serverUnsent(), 76);
    forgetA();
    assert.equal(backlog.sessionUnsent('s1'), 30);
    assert.equal(backlog.size, 3);
  });

  it('refuses a session past its bound with 429, and serves others', () => {
    const backlog = new ReplyBacklog(LIMITS);
    const a = fakeReply(100);
    backlog.track('s1', a);
    backlog.track('s2', fakeReply(10));
    assert.deepEqual(backlog.admit('s1'), { ok: true }, 'at the bound, not past it');
    a.held = 101;
    assert.deepEqual(backlog.admit('s1'), { ok: false, status: 429, unsent: 101 });
    assert.deepEqual(backlog.admit('s2'), { ok: true });
    assert.deepEqual(backlog.admit('s3'), { ok: true });
    a.held = 0; // its client read it
    assert.deepEqual(backlog.admit('s1'), { ok: true });
  });

  it('past the server bound, refuses with 503 only sessions with bytes unsent', () => {
    const backlog = new ReplyBacklog(LIMITS);
    for (const id of ['a', 'b', 'c', 'd']) backlog.track(id, fakeReply(80));
    assert.equal(backlog.serverUnsent(), 320);
    assert.deepEqual(backlog.admit('a'), { ok: false, status: 503, unsent: 80 });
    assert.deepEqual(backlog.admit('reader'), { ok: true }, 'a client that reads is served');
    backlog.track('reader', fakeReply(0));
    assert.deepEqual(backlog.admit('reader'), { ok: true });
  });

  it('closes the reply whose write would pass twice the session bound, and counts it no more', () => {
    const backlog = new ReplyBacklog(LIMITS);
    const a = fakeReply(150);
    const b = fakeReply(40);
    backlog.track('s1', a);
    backlog.track('s1', b);
    assert.equal(backlog.beforeWrite('s1', b, 10), true, '200 is not past 2 × 100');
    b.held += 10;
    assert.equal(backlog.beforeWrite('s1', b, 1), false);
    assert.equal(b.closed, true);
    assert.equal(a.closed, false, 'only the writer closes');
    assert.equal(backlog.sessionUnsent('s1'), 150);
    assert.equal(backlog.size, 1);
  });

  it('past twice the server bound, closes the replies holding the most first', () => {
    const backlog = new ReplyBacklog(LIMITS);
    const big = fakeReply(190);
    const mid = fakeReply(190);
    const writer = fakeReply(150);
    const small = fakeReply(60);
    backlog.track('a', big);
    backlog.track('b', mid);
    backlog.track('c', writer);
    backlog.track('d', small);
    big.held = 195;
    assert.equal(backlog.serverUnsent(), 595);
    assert.equal(backlog.beforeWrite('c', writer, 10), true);
    assert.equal(big.closed, true, 'the largest holder closes');
    assert.equal(mid.closed, false, 'and no more than needed');
    assert.equal(writer.closed, false);
    assert.equal(backlog.serverUnsent(), 400);
    // When the writer holds the most, it is the one closed.
    const lone = new ReplyBacklog(LIMITS);
    const w = fakeReply(599);
    const other = fakeReply(1);
    lone.track('x', w);
    lone.track('y', other);
    assert.equal(lone.beforeWrite(undefined, w, 5), false);
    assert.equal(w.closed, true);
    assert.equal(other.closed, false);
  });

  it('counts messages queued on their route, and replaces answers for a closed connection', () => {
    const backlog = new ReplyBacklog({
      maxUnsentBytesPerSession: 200,
      maxUnsentBytesPerServer: 1000,
    });
    const reply = fakeReply(0);
    const stream = fakeReply(0);
    backlog.track('s1', reply);
    backlog.track('s1', stream);
    backlog.route('s1', 1, reply);
    backlog.route('s1', 2, reply);
    backlog.route('s1', 3, reply);
    backlog.route('s1', STANDALONE, stream);
    assert.equal(backlog.routes, 4);

    const first = answerOf(1, 60);
    assert.equal(backlog.outgoing('s1', first), first);
    assert.equal(reply.held, 60 + SSE_FRAMING_BYTES);
    assert.equal(backlog.routes, 3, 'an answered call has no route any more');

    // A progress notification about call 2 goes on its reply; a list change on the GET stream.
    const progress: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/progress' };
    assert.equal(backlog.outgoing('s1', progress, 2), progress);
    assert.ok(reply.held > 60 + SSE_FRAMING_BYTES);
    const changed: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };
    assert.equal(backlog.outgoing('s1', changed), changed);
    assert.ok(stream.held > 0);

    // Call 2's answer would pass twice the session's bound: its connection closes, and the
    // answer becomes a short error for the SDK (which keeps a stream's answers until its last).
    const second = backlog.outgoing('s1', answerOf(2, 200));
    assert.equal(reply.closed, true);
    assert.equal((second as { id: number }).id, 2);
    assert.equal((second as { error: { code: number } }).error.code, -32001);
    assert.ok(JSON.stringify(second).length < 300);
    // Later messages of that connection: notifications dropped, answers replaced.
    assert.equal(backlog.outgoing('s1', progress, 3), undefined);
    const third = backlog.outgoing('s1', answerOf(3, 60));
    assert.equal((third as { error: { code: number } }).error.code, -32001);
    assert.equal(backlog.routes, 1, 'only the GET stream is left');
    backlog.forgetSession('s1');
    assert.equal(backlog.routes, 0);
  });

  it('passes messages with no route through uncounted', () => {
    const backlog = new ReplyBacklog(LIMITS);
    const message = answerOf(9, 50);
    assert.equal(backlog.outgoing(undefined, message), message);
    assert.equal(backlog.outgoing('s1', message), message);
    assert.equal(backlog.serverUnsent(), 0);
  });

  it('unroutes only the reply a route still goes to', () => {
    const backlog = new ReplyBacklog(LIMITS);
    const old = fakeReply();
    const now = fakeReply();
    backlog.route('s1', STANDALONE, old);
    backlog.route('s1', STANDALONE, now);
    backlog.unroute('s1', STANDALONE, old);
    assert.equal(backlog.routes, 1);
    backlog.unroute('s1', STANDALONE, now);
    assert.equal(backlog.routes, 0);
  });

  it('measures chunks in bytes', () => {
    assert.equal(chunkBytes('é'), 2);
    assert.equal(chunkBytes('ff', 'hex'), 1);
    assert.equal(chunkBytes(new Uint8Array(7)), 7);
    assert.equal(
      chunkBytes(() => undefined),
      0,
    );
  });
});
