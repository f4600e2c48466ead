import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { defaultTokenPath, resolveToken } from '../../../src/transport/token.js';

describe('resolveToken', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-tty-token-unit-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const good = 'f'.repeat(40);

  it('keeps a generated token under XDG_STATE_HOME, else ~/.local/state', () => {
    assert.equal(defaultTokenPath({ XDG_STATE_HOME: '/s', HOME: '/h' }), '/s/agent-tty/token');
    assert.equal(
      defaultTokenPath({ XDG_STATE_HOME: 'rel', HOME: '/h' }),
      '/h/.local/state/agent-tty/token',
    );
  });

  it('prefers AGENT_TTY_TOKEN, refusing it beside --token-file', () => {
    const storePath = join(dir, 'unused', 'token');
    assert.deepEqual(
      resolveToken({ env: { AGENT_TTY_TOKEN: good }, tokenFile: undefined, storePath }),
      {
        value: good,
        source: 'env',
        path: undefined,
      },
    );
    assert.throws(
      () => resolveToken({ env: { AGENT_TTY_TOKEN: good }, tokenFile: '/x', storePath }),
      /not both/,
    );
  });

  it('generates 64 hex digits 0600 once, then reads them back', () => {
    const storePath = join(dir, 'state', 'agent-tty', 'token');
    const made = resolveToken({ env: {}, tokenFile: undefined, storePath });
    assert.equal(made.source, 'generated');
    assert.match(made.value, /^[0-9a-f]{64}$/);
    assert.equal(statSync(storePath).mode & 0o777, 0o600);
    assert.equal(readFileSync(storePath, 'utf8'), `${made.value}\n`);
    const again = resolveToken({ env: {}, tokenFile: undefined, storePath });
    assert.deepEqual(again, { value: made.value, source: 'stored', path: storePath });
  });

  it('refuses a file others may read and a short token, never quoting it', () => {
    const file = join(dir, 'f');
    writeFileSync(file, 'secret-but-short', { mode: 0o640 });
    assert.throws(() => resolveToken({ env: {}, tokenFile: file, storePath: '/none' }), /mode 640/);
    rmSync(file);
    writeFileSync(file, 'secret-but-short', { mode: 0o600 });
    assert.throws(
      () => resolveToken({ env: {}, tokenFile: file, storePath: '/none' }),
      (err: Error) => /at least 32/.test(err.message) && !err.message.includes('secret'),
    );
  });
});
