/** Where the tests find the repository, the built server and the fixture programs. */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file runs from build/test/helpers). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** The bundled server that e2e tests start: `npm run build` writes it. */
export const SERVER = resolve(ROOT, 'dist/main.js');
export const FIXTURES = resolve(ROOT, 'test/fixtures');
