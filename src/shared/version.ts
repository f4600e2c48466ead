/** The package's name and version, read once from package.json next to dist/. */
import { existsSync, readFileSync } from 'node:fs';

interface PackageJson {
  name: string;
  version: string;
}

function readPackageJson(): PackageJson {
  // dist/main.js or a chunk of it (dist/chunks/) in the package; build/src/shared/version.js when
  // compiled with the tests.
  const places = ['../package.json', '../../package.json', '../../../package.json'].map(
    (path) => new URL(path, import.meta.url),
  );
  const text = readFileSync(places.find((url) => existsSync(url)) ?? (places[0] as URL), 'utf8');
  const parsed = JSON.parse(text) as Partial<PackageJson>;
  return { name: parsed.name ?? 'agent-tty', version: parsed.version ?? '0.0.0' };
}

export const PACKAGE: Readonly<PackageJson> = Object.freeze(readPackageJson());
