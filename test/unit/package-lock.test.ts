/**
 * package.json and package-lock.json agree, so `npm install` in a fresh clone leaves the lock
 * unchanged: npm rewrites the lock when the root entry's ranges differ from package.json's, and
 * re-resolves a dependency whose locked version no longer satisfies its range. The ranges used
 * here are exact versions (a prerelease such as `1.2.0-beta.15` only exactly), `^x.y.z` and
 * `~x.y.z`; another form fails this test until it is taught.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/paths.js';

type Ranges = Record<string, string>;
interface Manifest {
  dependencies?: Ranges;
  devDependencies?: Ranges;
  optionalDependencies?: Ranges;
  peerDependencies?: Ranges;
}
interface Lock {
  packages: Record<string, Manifest & { version?: string }>;
}

const KINDS = [
  'dependencies',
  'devDependencies',
  'optionalDependencies',
  'peerDependencies',
] as const;

function readJson<T>(name: string): T {
  return JSON.parse(readFileSync(join(ROOT, name), 'utf8')) as T;
}

function parseVersion(text: string): [number, number, number] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

const PRERELEASE = /^\d+\.\d+\.\d+-[0-9A-Za-z.-]+$/;

/** Whether `version` satisfies `range`, for the range forms this package uses (see above). */
function satisfiesRange(version: string, range: string): boolean {
  // An exact prerelease range is met by that version only; npm matches no other to it.
  if (PRERELEASE.test(range)) return version === range;
  const v = parseVersion(version);
  const op = range[0] === '^' || range[0] === '~' ? range[0] : '';
  const r = parseVersion(range.slice(op.length));
  if (!v || !r) throw new Error(`unsupported version or range: ${version} / ${range}`);
  const cmp = v[0] - r[0] || v[1] - r[1] || v[2] - r[2];
  if (op === '') return cmp === 0;
  if (cmp < 0) return false;
  if (op === '~') return v[0] === r[0] && v[1] === r[1];
  // Caret: the left-most non-zero part stays fixed.
  if (r[0] > 0) return v[0] === r[0];
  if (r[1] > 0) return v[0] === 0 && v[1] === r[1];
  return v[0] === 0 && v[1] === 0 && v[2] === r[2];
}

describe('package.json and package-lock.json', () => {
  const manifest = readJson<Manifest>('package.json');
  const lock = readJson<Lock>('package-lock.json');
  const root = lock.packages[''];

  it('the lock records the same ranges as package.json', () => {
    assert.ok(root, 'package-lock.json has no root entry (packages[""])');
    for (const kind of KINDS) {
      assert.deepEqual(
        root[kind] ?? {},
        manifest[kind] ?? {},
        `${kind} differ: run npm install and commit the lock`,
      );
    }
  });

  it('every locked version satisfies its range in package.json', () => {
    for (const kind of KINDS) {
      if (kind === 'peerDependencies') continue;
      for (const [name, range] of Object.entries(manifest[kind] ?? {})) {
        const locked = lock.packages[`node_modules/${name}`]?.version;
        assert.ok(locked, `${name} is not in package-lock.json`);
        assert.ok(
          satisfiesRange(locked, range),
          `${name}: locked ${locked} does not satisfy ${range}`,
        );
      }
    }
  });

  it('the range check follows npm for the forms it knows', () => {
    assert.equal(satisfiesRange('0.28.2', '0.28.2'), true);
    assert.equal(satisfiesRange('0.28.3', '0.28.2'), false);
    assert.equal(satisfiesRange('4.3.1', '^4.1.0'), true);
    assert.equal(satisfiesRange('5.0.0', '^4.1.0'), false);
    assert.equal(satisfiesRange('4.0.9', '^4.1.0'), false);
    assert.equal(satisfiesRange('0.28.9', '^0.28.2'), true);
    assert.equal(satisfiesRange('0.29.0', '^0.28.2'), false);
    assert.equal(satisfiesRange('1.32.9', '~1.32.2'), true);
    assert.equal(satisfiesRange('1.33.0', '~1.32.2'), false);
    assert.equal(satisfiesRange('1.2.0-beta.15', '1.2.0-beta.15'), true);
    assert.equal(satisfiesRange('1.2.0-beta.16', '1.2.0-beta.15'), false);
    assert.equal(satisfiesRange('1.2.0', '1.2.0-beta.15'), false);
    assert.throws(() => satisfiesRange('1.2.0-beta.15', '1.2.0'));
    assert.throws(() => satisfiesRange('1.2.0-beta.16', '^1.2.0-beta.15'));
    assert.throws(() => satisfiesRange('1.0.0', '>=1'));
  });
});
