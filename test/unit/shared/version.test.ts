import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { PACKAGE } from '../../../src/shared/version.js';

describe('PACKAGE', () => {
  it("is the package's own name and version, frozen", () => {
    const json = JSON.parse(
      readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8'),
    ) as { name: string; version: string };
    assert.deepEqual(PACKAGE, { name: json.name, version: json.version });
    assert.ok(Object.isFrozen(PACKAGE));
  });
});
