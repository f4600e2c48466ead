import assert from 'node:assert/strict';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import { describe, it } from 'node:test';
import { createSessionHistory } from '../../../src/session/shell-history.js';

describe('createSessionHistory', () => {
  it('names a file in a new private directory under the temporary directory', () => {
    const history = createSessionHistory('t7');
    try {
      const dir = dirname(history.file);
      assert.equal(dirname(dir), tmpdir());
      assert.match(basename(dir), /^agent-tty-history-t7-/);
      assert.equal(basename(history.file), 'history');
      assert.equal(statSync(dir).mode & 0o777, 0o700);
      assert.equal(existsSync(history.file), false, 'the shell creates the file');
    } finally {
      history.remove();
    }
  });

  it('gives each session its own directory', () => {
    const a = createSessionHistory('t1');
    const b = createSessionHistory('t1');
    assert.notEqual(a.file, b.file);
    a.remove();
    b.remove();
  });

  it('removes the directory with what the shells wrote, and a second remove is harmless', () => {
    const history = createSessionHistory('t2');
    writeFileSync(history.file, 'echo secret\n');
    writeFileSync(`${history.file}.LOCK`, '');
    history.remove();
    assert.equal(existsSync(dirname(history.file)), false);
    history.remove();
  });
});
