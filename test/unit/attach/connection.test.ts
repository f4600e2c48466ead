import assert from 'node:assert/strict';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  type AttachedWatcher,
  type ConnectionHandlers,
  serveConnection,
} from '../../../src/attach/connection.js';
import {
  type ClientMessage,
  MAX_CLIENT_LINE_BYTES,
  type ServerMessage,
} from '../../../src/attach/protocol.js';
import { tempSocketDir } from '../../helpers/attach-socket.js';
import { waitUntil } from '../../helpers/wait.js';

const LISTING: ServerMessage = {
  type: 'server',
  pid: 77,
  client: 'claude-code',
  startedAt: '2026-01-02T03:04:05.000Z',
  sessions: [],
};

/** What a watcher was given, in order. */
class RecordedWatcher implements AttachedWatcher {
  readonly calls: string[] = [];
  constructor(private readonly _socket: Socket) {}
  input(data: string): void {
    this.calls.push(`input ${data}`);
  }
  resize(cols: number, rows: number): void {
    this.calls.push(`size ${cols}x${rows}`);
  }
  end(reason: 'error', message: string): void {
    this.calls.push(`end ${reason}: ${message}`);
    this._socket.end();
  }
}

interface Served {
  readonly checked: { request: ClientMessage; proofPath: string | undefined }[];
  readonly watchers: RecordedWatcher[];
}

/** A client connection: the lines it received, and a promise of them all once it closed. */
function client(path: string) {
  const socket = createConnection(path);
  const lines: unknown[] = [];
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
      lines.push(JSON.parse(buffered.slice(0, end)));
      buffered = buffered.slice(end + 1);
    }
  });
  const closed = new Promise<unknown[]>((resolve) => {
    socket.on('error', () => resolve(lines));
    socket.on('close', () => resolve(lines));
  });
  const send = (message: unknown) => socket.write(`${JSON.stringify(message)}\n`);
  return { socket, lines, closed, send };
}

describe('serveConnection', { timeout: 60_000 }, () => {
  const { dir, remove } = tempSocketDir();
  const path = join(dir, 's.sock');
  let server: Server;
  let handlers: Partial<ConnectionHandlers> = {};
  let served: Served;

  before(async () => {
    server = createServer((socket) => {
      serveConnection(socket, {
        proofDir: undefined,
        checkPeer: (request, proof) => {
          served.checked.push({ request, proofPath: proof?.path });
          return undefined;
        },
        describe: () => LISTING,
        attach: (s) => {
          const watcher = new RecordedWatcher(s);
          served.watchers.push(watcher);
          return watcher;
        },
        ...handlers,
      });
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
  });
  after(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    remove();
  });
  const fresh = (h: Partial<ConnectionHandlers> = {}) => {
    handlers = h;
    served = { checked: [], watchers: [] };
  };

  it('says hello without a proof where peers are not checked, and answers list', async () => {
    fresh();
    const c = client(path);
    c.send({ type: 'list' });
    assert.deepEqual(await c.closed, [{ type: 'hello' }, LISTING]);
    assert.deepEqual(served.checked, [{ request: { type: 'list' }, proofPath: undefined }]);
  });

  it('names a proof in the hello where peers are checked, and hands it to the check', {
    skip: process.platform === 'linux' ? false : '/proc is Linux',
  }, async () => {
    fresh({ proofDir: dir });
    const c = client(path);
    c.send({ type: 'list', pid: 1, proofFd: 3 });
    const lines = await c.closed;
    const hello = lines[0] as { type: string; proof: string };
    assert.equal(hello.type, 'hello');
    assert.match(hello.proof, new RegExp(`^/proc/${process.pid}/fd/\\d+$`));
    assert.equal(served.checked.length, 1);
    assert.equal(served.checked[0]?.proofPath, hello.proof, 'the check got the proof');
  });

  it('tells why when the proof cannot be made', async () => {
    fresh({ proofDir: join(dir, 'missing') });
    const c = client(path);
    c.send({ type: 'list' });
    assert.deepEqual(await c.closed, [
      {
        type: 'end',
        reason: 'error',
        message: `agent-tty server ${process.pid} could not check which process is connecting (ENOENT); try again`,
      },
    ]);
  });

  it('sends the refusal of the peer check and nothing else', async () => {
    fresh({ checkPeer: () => 'refused: not you' });
    const c = client(path);
    c.send({ type: 'attach', sessionId: 't1', readOnly: false, cols: 80, rows: 24 });
    assert.deepEqual(await c.closed, [
      { type: 'hello' },
      { type: 'end', reason: 'error', message: 'refused: not you' },
    ]);
    assert.equal(served.watchers.length, 0);
  });

  it('refuses a line that is not of the protocol, and input as a first request', async () => {
    fresh();
    const a = client(path);
    a.socket.write('hello there\n');
    const [, end] = (await a.closed) as [unknown, { message: string }];
    assert.match(end.message, /^not an attach protocol message \(/);

    const b = client(path);
    b.send({ type: 'input', data: 'ls\r' });
    assert.deepEqual((await b.closed)[1], {
      type: 'end',
      reason: 'error',
      message: 'the first request is "list" or "attach", not "input"',
    });
  });

  it('passes input and size to the watcher once attached, and refuses a second request', async () => {
    fresh();
    const c = client(path);
    const request = { type: 'attach', sessionId: 't2', readOnly: true, cols: 100, rows: 30 };
    c.send(request);
    await waitUntil(() => served.watchers.length === 1, 'attached');
    c.send({ type: 'input', data: 'echo hi\r' });
    c.send({ type: 'size', cols: 120, rows: 40 });
    c.send({ type: 'list' });
    await c.closed;
    assert.deepEqual(served.watchers[0]?.calls, [
      'input echo hi\r',
      'size 120x40',
      'end error: "list" is only a first request',
    ]);
    assert.deepEqual(served.checked, [{ request, proofPath: undefined }]);
  });

  it('refuses a line over the limit as it streams, before it ends', async () => {
    fresh();
    const c = client(path);
    c.socket.write(Buffer.alloc(MAX_CLIENT_LINE_BYTES + 1, 'x'));
    const lines = (await c.closed) as { message?: string }[];
    assert.match(lines.at(-1)?.message ?? '', /over the 262144-byte limit/);
    assert.equal(served.checked.length, 0);
  });
});
