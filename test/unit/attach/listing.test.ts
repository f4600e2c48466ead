import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Listing, ServerEntry } from '../../../src/attach/attach-client.js';
import { formatListing, pickServer } from '../../../src/attach/listing.js';
import type { ListedSession } from '../../../src/attach/protocol.js';

const session = (over: Partial<ListedSession>): ListedSession => ({
  sessionId: 't1',
  command: null,
  status: 'running',
  cols: 80,
  rows: 24,
  quietMs: 3200,
  watchers: 0,
  ...over,
});

const server = (pid: number, sessions: ListedSession[], client = 'claude-code'): ServerEntry => ({
  type: 'server',
  pid,
  client,
  startedAt: '2026-01-02T03:04:05.678Z',
  sessions,
  path: `/tmp/agent-tty-1000/${pid}.sock`,
});

const DIR = '/tmp/agent-tty-1000';

describe('formatListing', () => {
  it('lists each server and its sessions, with how long ago each screen changed', () => {
    const listing: Listing = {
      servers: [
        server(100, [
          session({ sessionId: 't1', quietMs: 850 }),
          session({
            sessionId: 't2',
            command: 'vim notes.txt',
            status: 'exited',
            cols: 120,
            rows: 40,
            quietMs: 18_000_000,
            watchers: 2,
          }),
        ]),
        server(200, [], ''),
      ],
      unlisted: [{ pid: 300, message: 'too many connections' }],
    };
    assert.equal(
      formatListing(listing, DIR),
      [
        'server 100 (claude-code, started 2026-01-02 03:04:05 UTC)',
        '  t1     running  80x24    changed 850 ms ago  (shell)',
        '  t2     exited   120x40   changed 5 h ago     2 attached  vim notes.txt',
        'server 200 (no client yet, started 2026-01-02 03:04:05 UTC)',
        '  no sessions',
        'server 300: not listed: too many connections',
        '',
        'attach with: agent-tty attach SESSION (or SESSION@PID); add --read-only to watch only',
        '',
      ].join('\n'),
    );
  });

  it('writes each duration as the rest of agent-tty does', () => {
    const changed = (quietMs: number) =>
      /changed (.*) ago/.exec(
        formatListing({ servers: [server(1, [session({ quietMs })])], unlisted: [] }, DIR),
      )?.[1];
    assert.deepEqual([0, 3299, 95_000, 720_000, 7_200_000].map(changed), [
      '0 ms',
      '3.2 s',
      '95 s',
      '12 min',
      '2 h',
    ]);
  });

  it('says where it looked when no server runs, and needs no PID with one server', () => {
    assert.equal(
      formatListing({ servers: [], unlisted: [] }, DIR),
      `no agent-tty server is running for you (looked in ${DIR})\n`,
    );
    const one = formatListing({ servers: [server(1, [session({})])], unlisted: [] }, DIR);
    assert.match(one, /\nattach with: agent-tty attach SESSION; add --read-only/);
  });

  it('cuts a session line to the terminal width with an ellipsis, and only those', () => {
    const listing = { servers: [server(1, [session({ command: 'x'.repeat(200) })])], unlisted: [] };
    const lines = formatListing(listing, DIR, 40).split('\n');
    assert.equal([...(lines[1] as string)].length, 40);
    assert.ok(lines[1]?.endsWith('…'));
    assert.equal(lines[0], 'server 1 (claude-code, started 2026-01-02 03:04:05 UTC)');
    assert.ok((formatListing(listing, DIR).split('\n')[1] as string).endsWith('x'));
  });

  it('prints no control character a server reports', () => {
    const text = formatListing(
      {
        servers: [
          server(1, [session({ sessionId: 't\x1b1', command: 'a\x1b]2;x\x07b' })], 'c\x1bd'),
        ],
        unlisted: [{ pid: 2, message: 'm\x9bn' }],
      },
      DIR,
    );
    const controls = [...text].filter((c) => {
      const code = c.codePointAt(0) as number;
      return c !== '\n' && (code < 0x20 || (code >= 0x7f && code <= 0x9f));
    });
    assert.deepEqual(controls, []);
  });
});

describe('pickServer', () => {
  const a = server(100, [session({ sessionId: 't1' }), session({ sessionId: 't2' })]);
  const b = server(200, [session({ sessionId: 't1' })], 'codex');

  it('picks the one server with the session, or the one the PID names', () => {
    assert.deepEqual(pickServer({ servers: [a, b], unlisted: [] }, 't2', DIR), {
      server: a,
      sessionId: 't2',
    });
    assert.deepEqual(pickServer({ servers: [a, b], unlisted: [] }, 't1@200', DIR), {
      server: b,
      sessionId: 't1',
    });
  });

  it('names SESSION@PID for each server when several have the session', () => {
    assert.deepEqual(pickServer({ servers: [a, b], unlisted: [] }, 't1', DIR), {
      error: [
        'agent-tty attach: t1 is open in 2 servers; name one:',
        '  agent-tty attach t1@100   (claude-code)',
        '  agent-tty attach t1@200   (codex)',
        '',
      ].join('\n'),
    });
  });

  it('lists the servers when none has it, saying so when a server did not answer', () => {
    const listing = { servers: [a], unlisted: [] };
    assert.deepEqual(pickServer(listing, 't9', DIR), {
      error: `agent-tty attach: no session t9 is open.\n${formatListing(listing, DIR)}`,
    });
    assert.deepEqual(pickServer(listing, 't2@200', DIR), {
      error: `agent-tty attach: no session t2@200 is open.\n${formatListing(listing, DIR)}`,
    });
    const partly = { servers: [a], unlisted: [{ pid: 300, message: 'full' }] };
    const picked = pickServer(partly, 't9', DIR);
    assert.ok('error' in picked);
    assert.match(
      picked.error,
      /^agent-tty attach: no session t9 is open in a server that answered\.\n/,
    );
  });
});
