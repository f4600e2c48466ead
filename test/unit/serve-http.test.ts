import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { httpBanner, prepareHttp } from '../../src/serve-http.js';
import { parseHttpAddress } from '../../src/shared/http-address.js';

describe('prepareHttp', () => {
  it('refuses a non-loopback address without a token the user chose, saying what to do', () => {
    assert.throws(
      () => prepareHttp(parseHttpAddress('0.0.0.0:7681'), undefined, { XDG_STATE_HOME: '/none' }),
      /refusing to serve on 0\.0\.0\.0.*set AGENT_TTY_TOKEN or pass --token-file/,
    );
    const token = 'k'.repeat(40);
    const setup = prepareHttp(parseHttpAddress('0.0.0.0:7681'), undefined, {
      AGENT_TTY_TOKEN: token,
    });
    assert.deepEqual(setup.token, { value: token, source: 'env', path: undefined });
  });
});

describe('httpBanner', () => {
  const address = parseHttpAddress('[::1]:0');

  it('shows a generated token in the claude line, and only there', () => {
    const value = 'a'.repeat(64);
    const lines = httpBanner(
      { address, token: { value, source: 'generated', path: '/s/t' } },
      81,
      0,
    );
    assert.equal(lines[0], 'agent-tty: serving MCP over HTTP at http://[::1]:81/mcp');
    assert.ok(
      lines.includes(
        `  claude mcp add --transport http agent-tty http://[::1]:81/mcp --header "Authorization: Bearer ${value}"`,
      ),
    );
    assert.equal(lines.filter((l) => l.includes(value)).length, 1);
    assert.ok(
      lines.some((l) =>
        l.startsWith(
          '  codex mcp add agent-tty --url http://[::1]:81/mcp --bearer-token-env-var AGENT_TTY_TOKEN',
        ),
      ),
    );
  });

  it('names where a token it did not make is, never the token', () => {
    const value = 'b'.repeat(64);
    const stored = httpBanner({ address, token: { value, source: 'stored', path: '/s/t' } }, 81, 0);
    assert.ok(stored.some((l) => l.includes('Bearer $(cat /s/t)')));
    const env = httpBanner({ address, token: { value, source: 'env', path: undefined } }, 81, 0);
    assert.ok(env.some((l) => l.includes('Bearer $AGENT_TTY_TOKEN')));
    assert.equal([...stored, ...env].join('\n').includes(value), false);
  });

  it('says how long an unused terminal is kept, and how to change it', () => {
    const token = { value: 'c'.repeat(64), source: 'env' as const, path: undefined };
    assert.ok(
      httpBanner({ address, token }, 81, 24 * 3600 * 1000).includes(
        'agent-tty: a terminal no tool call names for 24 h is closed (--idle-timeout MS; 0 = never)',
      ),
    );
    assert.ok(
      httpBanner({ address, token }, 81, 0).includes(
        'agent-tty: terminals stay open until closed or the server stops (--idle-timeout 0)',
      ),
    );
  });
});
