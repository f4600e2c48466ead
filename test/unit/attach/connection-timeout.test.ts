/**
 * The attach connection's bound on its first request (spec/attach.md, Limits: "time to the first
 * request, 5 s, the connection is closed"), on node:test's fake clock: a connection that asks
 * nothing is closed at 5 s and not before; one that asked in time is not closed by it.
 * test/e2e/attach-hostile.test.ts waits out the real 5 s against the built server in the heavy
 * layer (test/helpers/layers.ts).
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { type ConnectionHandlers, serveConnection } from '../../../src/attach/connection.js';

/** The parts of a socket serveConnection uses: what it wrote, and whether it was destroyed. */
class FakeSocket extends EventEmitter {
  destroyed = false;
  writableEnded = false;
  readonly written: string[] = [];
  write(data: string): boolean {
    this.written.push(String(data));
    return true;
  }
  end(data?: string): this {
    if (data !== undefined) this.written.push(String(data));
    this.writableEnded = true;
    return this;
  }
  destroy(): this {
    if (!this.destroyed) {
      this.destroyed = true;
      this.emit('close');
    }
    return this;
  }
  resume(): this {
    return this;
  }
}

const HANDLERS: ConnectionHandlers = {
  proofDir: undefined,
  checkPeer: () => undefined,
  describe: () => ({
    type: 'server',
    pid: 77,
    client: 'claude-code',
    startedAt: '2026-01-02T03:04:05.000Z',
    sessions: [],
  }),
  attach: () => ({ input: () => undefined, resize: () => undefined, end: () => undefined }),
};

function serve(): FakeSocket {
  const socket = new FakeSocket();
  serveConnection(socket as unknown as Socket, HANDLERS);
  return socket;
}

describe('the first request of an attach connection', () => {
  beforeEach(() => {
    mock.timers.enable({ apis: ['setTimeout'] });
  });
  afterEach(() => {
    mock.timers.reset();
  });

  it('closes a connection that asks nothing at 5 s, not before', () => {
    const socket = serve();
    assert.match(socket.written[0] ?? '', /"type":"hello"/);
    mock.timers.tick(4999);
    assert.equal(socket.destroyed, false, 'open at 4999 ms');
    mock.timers.tick(1);
    assert.equal(socket.destroyed, true, 'closed at 5 s');
  });

  it('leaves a connection that asked in time to its request', () => {
    const listed = serve();
    mock.timers.tick(4000);
    listed.emit('data', Buffer.from('{"type":"list"}\n'));
    assert.equal(listed.writableEnded, true, 'answered and ended');
    const attached = serve();
    attached.emit(
      'data',
      Buffer.from('{"type":"attach","sessionId":"t1","readOnly":false,"cols":80,"rows":24}\n'),
    );
    mock.timers.tick(60_000);
    assert.equal(listed.destroyed, false, 'the listing was not cut off');
    assert.equal(attached.destroyed, false, 'the watcher stays attached');
  });

  it('stops the clock when the client goes first', () => {
    const socket = serve();
    socket.emit('close');
    mock.timers.tick(5000);
    assert.equal(socket.destroyed, false, 'nothing destroyed a closed connection again');
  });
});
