import assert from 'node:assert/strict';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  createPrivateFile,
  makePrivateDir,
  writeUserFile,
} from '../../../src/shared/private-files.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Runs `fn` under `mask`, restoring the process's umask after. */
function withUmask<T>(mask: number, fn: () => T): T {
  const before = process.umask(mask);
  try {
    return fn();
  } finally {
    process.umask(before);
  }
}

describe('private files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'private-files-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('makes each new directory 0700 whatever the umask, and leaves existing ones alone', () => {
    const existing = join(dir, 'existing');
    mkdirSync(existing, { mode: 0o755 });
    withUmask(0o777, () => makePrivateDir(join(existing, 'a', 'b')));
    assert.equal(modeOf(existing), 0o755);
    assert.equal(modeOf(join(existing, 'a')), 0o700);
    assert.equal(modeOf(join(existing, 'a', 'b')), 0o700);
    makePrivateDir(join(existing, 'a')); // there already: nothing to do
  });

  it('creates a new file 0600 whatever the umask, and never over anything at its path', () => {
    const path = join(dir, 'new.txt');
    const fd = withUmask(0o777, () => createPrivateFile(path));
    closeSync(fd);
    assert.equal(modeOf(path), 0o600);
    assert.throws(() => createPrivateFile(path), { code: 'EEXIST' });
    const link = join(dir, 'link');
    symlinkSync(join(dir, 'elsewhere'), link);
    assert.throws(() => createPrivateFile(link), { code: 'EEXIST' });
  });

  it('writes a user-named file: new ones 0600, existing ones in place with their mode', () => {
    const fresh = join(dir, 'report.xml');
    writeUserFile(fresh, 'one');
    assert.equal(readFileSync(fresh, 'utf8'), 'one');
    assert.equal(modeOf(fresh), 0o600);
    const shared = join(dir, 'shared.xml');
    writeFileSync(shared, 'old', { mode: 0o644 });
    writeUserFile(shared, 'two');
    assert.equal(readFileSync(shared, 'utf8'), 'two');
    assert.equal(modeOf(shared), 0o644);
  });
});
