/**
 * Where the HTTP transport's token comes from (spec/http.md, Authentication): a generated token
 * is written 0600 in a 0700 directory, shown once, and found again by the next start; a token
 * file others can read is refused; and a server on a non-loopback address will not start
 * without a token the user chose.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { connectHttp, newToken, runServe, startHttpServer } from '../helpers/http-server.js';

describe('HTTP transport: the token', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tty-http-token-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('generates a token 0600 under XDG_STATE_HOME, shows it once, and reuses it', async () => {
    const state = join(dir, 'state');
    const server = await startHttpServer({ env: { XDG_STATE_HOME: state } });
    const file = join(state, 'agent-tty', 'token');
    try {
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(statSync(join(state, 'agent-tty')).mode & 0o777, 0o700);
      const token = readFileSync(file, 'utf8').trim();
      assert.match(token, /^[0-9a-f]{64}$/, '256 random bits');
      const shown = server.stderr().split(token).length - 1;
      assert.equal(shown, 1, 'shown once, in the claude mcp add line');
      assert.match(
        server.stderr(),
        new RegExp(
          `claude mcp add --transport http agent-tty ${server.url} --header "Authorization: Bearer ${token}"`,
        ),
      );
      assert.match(
        server.stderr(),
        /codex mcp add agent-tty --url \S+ --bearer-token-env-var AGENT_TTY_TOKEN/,
      );
      const client = await connectHttp(server.url, token);
      assert.equal((await client.client.listTools()).tools.length, 6);
      await client.close();
      await server.stop();
      const again = await startHttpServer({ env: { XDG_STATE_HOME: state } });
      assert.equal(readFileSync(file, 'utf8').trim(), token, 'the next start reuses it');
      assert.equal(again.stderr().includes(token), false, 'and does not show it again');
      assert.match(again.stderr(), /Bearer \$\(cat \S+agent-tty\/token\)/);
      await again.stop();
    } finally {
      if (server.child.exitCode === null) await server.stop();
    }
  });

  it('refuses a token file others can read, and a short token', async () => {
    const file = join(dir, 'open-token');
    writeFileSync(file, newToken());
    chmodSync(file, 0o644);
    const open = await runServe(['--http', '127.0.0.1:0', '--token-file', file]);
    assert.equal(open.code, 1);
    assert.match(open.stderr, /can be read by others \(mode 644\); chmod 600 it/);
    chmodSync(file, 0o600);
    writeFileSync(file, 'short');
    const short = await runServe(['--http', '127.0.0.1:0', '--token-file', file]);
    assert.equal(short.code, 1);
    assert.match(short.stderr, /at least 32 characters/);
  });

  it('serves with a token file of mode 600', async () => {
    const file = join(dir, 'token');
    const token = newToken();
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    const server = await startHttpServer({ args: ['--token-file', file] });
    const client = await connectHttp(server.url, token);
    assert.equal((await client.client.listTools()).tools.length, 6);
    await client.close();
    assert.equal(server.stderr().includes(token), false);
    await server.stop();
  });

  it('will not serve a non-loopback address without a token the user chose', async () => {
    const state = join(dir, 'state-refused');
    const refused = await runServe(['--http', '0.0.0.0:0'], { XDG_STATE_HOME: state });
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /refusing to serve on 0\.0\.0\.0, which is not a loopback address/,
    );
    assert.doesNotMatch(refused.stderr, /serving MCP/);
    const token = newToken();
    const server = await startHttpServer({ address: '0.0.0.0:0', env: { AGENT_TTY_TOKEN: token } });
    const client = await connectHttp(`http://127.0.0.1:${server.port}/mcp`, token);
    assert.equal((await client.client.listTools()).tools.length, 6);
    await client.close();
    await server.stop();
  });
});
