/**
 * The HTTP listener against clients without the token, from the honest client's own address
 * (issue 35, S4, S5, S8): 64 idle connections, or 64 keep-alive connections asking `GET /x`, do
 * not keep an honest client from being served; 1 000 refused requests are a line or two of log,
 * not 1 000; and one client's name and command reach another's terminal_list with the screen's
 * stand-ins, not as raw control characters. The deadline and the log's minute are unit-tested on
 * a fake clock (test/unit/transport/http-connections.test.ts, http-refusals.test.ts).
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  connectHttp,
  type HttpServer,
  mcpHeaders,
  newToken,
  startHttpServer,
} from '../helpers/http-server.js';

const ATTACK_SOCKETS = 64;
const HONEST_CALLS = 30;

/**
 * Keeps `count` connections to `port` open without the token for as long as it runs, opening a
 * new one whenever one is closed; `act` is what each does once connected.
 */
function holdConnections(port: number, count: number, act: (socket: Socket) => void) {
  let isRunning = true;
  const open = new Set<Socket>();
  const one = () => {
    if (!isRunning) return;
    const socket = connect(port, '127.0.0.1', () => act(socket));
    open.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      open.delete(socket);
      setTimeout(one, 10);
    });
  };
  for (let i = 0; i < count; i++) one();
  return {
    stop() {
      isRunning = false;
      for (const socket of open) socket.destroy();
    },
  };
}

describe('HTTP listener: clients without the token (issue 35)', () => {
  const token = newToken();
  let server: HttpServer;

  before(async () => {
    server = await startHttpServer({ env: { AGENT_TTY_TOKEN: token } });
  });
  after(async () => {
    await server.stop();
  });

  /** How many of HONEST_CALLS calls, each from a new client, are answered within 10 s. */
  async function honestCallsServed(): Promise<number> {
    let served = 0;
    for (let i = 0; i < HONEST_CALLS; i++) {
      const attempt = (async () => {
        const client = await connectHttp(server.url, token, `honest-${i}`);
        try {
          return (await client.call('terminal_list')).isError === false;
        } finally {
          await client.close();
        }
      })().catch(() => false);
      const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000));
      if (await Promise.race([attempt, timeout])) served++;
    }
    return served;
  }

  it('serves every honest call while 64 idle connections are held open from its address', {
    timeout: 120_000,
  }, async () => {
    const attack = holdConnections(server.port, ATTACK_SOCKETS, () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    try {
      assert.equal(await honestCallsServed(), HONEST_CALLS);
    } finally {
      attack.stop();
    }
  });

  it('serves every honest call while 64 keep-alive connections ask GET /x every 3 s', {
    timeout: 120_000,
  }, async () => {
    let refusalsKeptOpen = 0;
    const timers = new Set<NodeJS.Timeout>();
    const attack = holdConnections(server.port, ATTACK_SOCKETS, (socket) => {
      const ask = () => {
        if (socket.destroyed) return;
        socket.write(
          `GET /x HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: keep-alive\r\n\r\n`,
        );
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!socket.destroyed) refusalsKeptOpen++;
          ask();
        }, 3000);
        timers.add(timer);
      };
      ask();
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    try {
      assert.equal(await honestCallsServed(), HONEST_CALLS);
      assert.equal(refusalsKeptOpen, 0, 'no connection kept open after being refused');
    } finally {
      attack.stop();
      for (const timer of timers) clearTimeout(timer);
    }
  });

  it('logs 1 000 bad-Host refusals as a line or two, not a line each', {
    timeout: 120_000,
  }, async () => {
    // A server of its own: its log holds only these refusals, and its summary is written at exit.
    const own = await startHttpServer({ env: { AGENT_TTY_TOKEN: token } });
    const refuseOne = () =>
      new Promise<number>((resolve) => {
        const req = request(
          own.url,
          { method: 'POST', agent: false, headers: { ...mcpHeaders(token), host: 'evil.test' } },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', () => resolve(0));
        req.end('{}');
      });
    const statuses: number[] = [];
    try {
      for (let round = 0; round < 50; round++) {
        statuses.push(...(await Promise.all(Array.from({ length: 20 }, refuseOne))));
      }
    } finally {
      await own.stop();
    }
    assert.deepEqual(new Set(statuses), new Set([403]));
    const logged = own
      .stderr()
      .split('\n')
      .filter((line) => line.includes('refused'));
    assert.ok(logged.length <= 3, `${logged.length} lines for 1 000 refusals:\n${logged[0]}`);
    assert.match(own.stderr(), /refused a request from 127\.0\.0\.1: a bad Host/);
    assert.match(own.stderr(), /refused 1000 requests from 127\.0\.0\.1 .*1000 × a bad Host/);
  });

  it("shows one client's name and command to another with stand-ins, not raw control characters", async () => {
    const hostileName = 'evil\u001b]0;pwned\u0007\u202eemaN';
    const hostile = await connectHttp(server.url, token, hostileName);
    const other = await connectHttp(server.url, token, 'other');
    try {
      const started = await hostile.call('terminal_start', {
        command: "printf '%s' \u001b[2J\u0007\u202eok",
      });
      assert.equal(started.isError, false, started.text);
      const listed = await other.call('terminal_list');
      const sessions = (listed.data as { sessions: { command: string; client?: string }[] })
        .sessions;
      const shown = JSON.stringify(sessions) + listed.text;
      assert.ok(
        sessions.some((s) => s.client?.startsWith('evil')),
        shown,
      );
      // JSON.stringify escapes ESC and BEL as \u001b and \u0007, so look for the raw characters.
      for (const raw of ['\u001b', '\u0007', '\u202e']) {
        const where = [...sessions.map((s) => `${s.command}${s.client ?? ''}`), listed.text];
        assert.equal(
          where.some((text) => text.includes(raw)),
          false,
          `raw U+${raw.charCodeAt(0).toString(16).padStart(4, '0')} reached another client`,
        );
      }
    } finally {
      await hostile.close();
      await other.close();
    }
  });
});
