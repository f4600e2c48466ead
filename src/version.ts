/** The package's name and version, read once from package.json next to dist/. */
import { readFileSync } from 'node:fs';

interface PackageJson {
  name: string;
  version: string;
}

function readPackageJson(): PackageJson {
  const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  const parsed = JSON.parse(text) as Partial<PackageJson>;
  return { name: parsed.name ?? 'agent-tty', version: parsed.version ?? '0.0.0' };
}

export const PACKAGE: Readonly<PackageJson> = Object.freeze(readPackageJson());
