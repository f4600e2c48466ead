/** macOS spawn-helper repair, on a node-pty layout made in a temporary directory. */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ensureSpawnHelper, fixSpawnHelper } from '../../../src/pty/spawn-helper.js';

function layout(dir: string, mode: number): string {
  const root = mkdtempSync(join(tmpdir(), 'node-pty-'));
  mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, dir, 'pty.node'), '');
  const helper = join(root, dir, 'spawn-helper');
  writeFileSync(helper, '');
  chmodSync(helper, mode);
  return root;
}

describe('spawn-helper', () => {
  it('restores the execute bit on the prebuilt helper node-pty loads', () => {
    const root = layout('prebuilds/darwin-arm64', 0o644);
    assert.equal(fixSpawnHelper(root, 'arm64'), undefined);
    assert.equal(statSync(join(root, 'prebuilds/darwin-arm64/spawn-helper')).mode & 0o777, 0o755);
    rmSync(root, { recursive: true });
  });

  it('leaves an executable helper alone and ignores a layout without one', () => {
    const root = layout('build/Release', 0o700);
    assert.equal(fixSpawnHelper(root, 'x64'), undefined);
    assert.equal(statSync(join(root, 'build/Release/spawn-helper')).mode & 0o777, 0o700);
    assert.equal(fixSpawnHelper(mkdtempSync(join(tmpdir(), 'empty-')), 'x64'), undefined);
    rmSync(root, { recursive: true });
  });

  it('does nothing off macOS', () => {
    assert.equal(ensureSpawnHelper('linux'), undefined);
  });
});
