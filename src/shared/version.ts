/** The package's name and version, read once from the package's package.json. */
import { existsSync, readFileSync } from 'node:fs';

interface PackageJson {
  name: string;
  version: string;
}

/**
 * Where package.json lies from this module, nearest first: dist/main.js or a chunk under
 * dist/chunks/ (the bundle, which puts this module wherever more than one entry point shares it),
 * or build/src/shared/version.js (compiled with the tests).
 */
const CANDIDATES = ['../package.json', '../../package.json', '../../../package.json'] as const;

function readPackageJson(): PackageJson {
  const urls = CANDIDATES.map((path) => new URL(path, import.meta.url));
  const url = urls.find((u) => existsSync(u)) ?? (urls.at(-1) as URL);
  const parsed = JSON.parse(readFileSync(url, 'utf8')) as Partial<PackageJson>;
  return { name: parsed.name ?? 'agent-tty', version: parsed.version ?? '0.0.0' };
}

export const PACKAGE: Readonly<PackageJson> = Object.freeze(readPackageJson());
