/**
 * The layering of src/, checked on every import of every module (static, type-only, dynamic and
 * import types): shared modules at the bottom, then the leaves (input/, screen/, pty/, match/),
 * session/, render/, the entry layers (tools/, cli/, resources, transport/, attach/) and the top (server,
 * serve, main). Imports point downward only. biome.json's noRestrictedImports holds the
 * lower layers to the same table while editing; this test names each crossing. Also: one owner
 * per native or emulator package, process.kill only in pty/terminate.ts, and for each error
 * code the modules that build it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { ERROR_CODES, type ErrorCode } from '../../src/shared/errors.js';

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

type Layer =
  | 'shared'
  | 'contract'
  | 'input'
  | 'screen'
  | 'pty'
  | 'match'
  | 'session'
  | 'render'
  | 'tools'
  | 'cli'
  | 'resources'
  | 'transport'
  | 'attach'
  | 'top';

const TOP_FILES = ['server.ts', 'serve.ts', 'serve-http.ts', 'main.ts', 'signals.ts'];
const FOLDERS: readonly Layer[] = [
  'shared',
  'input',
  'screen',
  'pty',
  'match',
  'session',
  'render',
  'tools',
  'cli',
  'transport',
  'attach',
];

const SHARED: readonly Layer[] = ['shared', 'contract'];
const LEAVES: readonly Layer[] = ['input', 'screen', 'pty', 'match'];
const BELOW_ENTRY: readonly Layer[] = [...SHARED, ...LEAVES, 'session', 'render'];

/** What each layer may import (besides packages, see PACKAGES). */
const MAY_IMPORT: Record<Layer, readonly Layer[]> = {
  shared: SHARED,
  contract: SHARED,
  input: [...SHARED, 'input'],
  screen: [...SHARED, 'screen'],
  pty: [...SHARED, 'pty'],
  match: [...SHARED, 'match'],
  session: [...SHARED, ...LEAVES, 'session'],
  render: [...SHARED, ...LEAVES, 'session', 'render'],
  tools: [...BELOW_ENTRY, 'tools'],
  cli: [...BELOW_ENTRY, 'cli'],
  resources: BELOW_ENTRY,
  transport: [...BELOW_ENTRY, 'transport'],
  attach: [...BELOW_ENTRY, 'attach'],
  top: [...BELOW_ENTRY, 'tools', 'cli', 'resources', 'transport', 'attach', 'top'],
};

/**
 * Crossings that exist today and are being removed: "from -> to", paths under src/. Empty it
 * as they go; a listed crossing that no longer exists fails the test, so the list only shrinks.
 * Once it is empty, biome.json can hold tools/, cli/ and resources to the table as well.
 */
const PENDING: readonly string[] = [];

/** Packages with one owning module each: the adapter that hides them from everything else. */
const PACKAGE_OWNERS: readonly { readonly name: string; readonly owner: string }[] = [
  { name: 'node-pty', owner: 'pty/spawn.ts' },
  { name: '@xterm/', owner: 'screen/xterm.ts' },
];

/**
 * The modules that build each error code (`new TerminalError('CODE', …)`), so its message and
 * advice are written in one place: a second builder would tell an agent something else (as a
 * wait's errors once differed between terminal_input and `agent-tty test`). Call the owner's
 * function instead, or add the module here on purpose.
 */
const ERROR_OWNERS: Record<ErrorCode, readonly string[]> = {
  INVALID_ARGUMENT: [
    'cli/test-script.ts',
    'shared/option-values.ts',
    'shared/http-address.ts',
    'shared/serve-args.ts',
    'input/actions.ts',
    'match/match-pool.ts',
    'session/launch.ts',
    'session/observation.ts',
    'session/run-snapshot.ts',
    'session/run-input.ts',
    'session/run-start.ts',
    'session/wait-errors.ts',
    'shared/text-query.ts',
    'tools/invalid-arguments.ts',
  ],
  SESSION_NOT_FOUND: ['session/registry.ts'],
  SESSION_LIMIT: ['session/registry.ts'],
  SESSION_EXITED: ['session/session-view.ts'],
  SESSION_CLOSED: ['shared/errors.ts'],
  SPAWN_FAILED: ['pty/exec-size.ts', 'pty/pty-unavailable.ts', 'pty/spawn.ts', 'pty/spawnable.ts'],
  INVALID_KEY: ['input/actions.ts'],
  MOUSE_NOT_ENABLED: ['input/actions.ts'],
  OUT_OF_BOUNDS: ['input/actions.ts', 'session/run-snapshot.ts'],
  RESULT_TOO_LARGE: ['tools/result.ts'],
  WAIT_TIMEOUT: ['session/wait-errors.ts'],
  INPUT_REQUIRED: ['session/wait-errors.ts'],
  INPUT_BACKLOG: ['session/input-gate.ts'],
  NOT_READY: ['session/readiness.ts'],
  PATTERN_TIMEOUT: ['match/match-pool.ts'],
  CANCELLED: ['shared/errors.ts', 'match/match-pool.ts'],
  INTERNAL: ['shared/errors.ts', 'match/match-pool.ts'],
};

/**
 * Modules that build a TerminalError with a code that is not a literal, and the codes they may
 * build: errors.ts copies an error (withPartial, withMessage); actionError takes its code.
 */
const COMPUTED_CODES: Readonly<Record<string, readonly ErrorCode[]>> = {
  'shared/errors.ts': [],
  'input/actions.ts': ['INVALID_ARGUMENT', 'INVALID_KEY', 'MOUSE_NOT_ENABLED', 'OUT_OF_BOUNDS'],
};

/** Every `new TerminalError(…)` of `source`: its code when a string literal, else undefined. */
function errorBuilds(
  file: string,
  source = PARSED.get(file) as ts.SourceFile,
): { code: string | undefined; line: number }[] {
  const found: { code: string | undefined; line: number }[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'TerminalError'
    ) {
      const first = node.arguments?.[0];
      const code = first && ts.isStringLiteralLike(first) ? first.text : undefined;
      found.push({ code, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Layers that import no package but node builtins, zod and the packages they own. */
const PLAIN_LAYERS: readonly Layer[] = [...SHARED, ...LEAVES, 'session'];

function layerOf(file: string): Layer | undefined {
  if (file.startsWith('shared/contract/')) return 'contract';
  if (TOP_FILES.includes(file)) return 'top';
  if (file === 'resources.ts') return 'resources';
  const folder = file.split('/')[0] as Layer;
  return file.includes('/') && FOLDERS.includes(folder) ? folder : undefined;
}

interface Import {
  /** The importing module, under src/ ("screen/grid.ts"). */
  readonly from: string;
  readonly line: number;
  readonly specifier: string;
  /** The imported module under src/, for a relative import that stays in src/. */
  readonly target: string | undefined;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [relative(SRC, full).split(sep).join('/')] : [];
  });
}

const FILES = sourceFiles(SRC).sort();
const PARSED = new Map(
  FILES.map((file) => {
    const text = readFileSync(join(SRC, file), 'utf8');
    return [file, ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)] as const;
  }),
);

function resolveTarget(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const path = posix.normalize(posix.join(posix.dirname(from), specifier));
  if (path.startsWith('../')) return undefined;
  return path.replace(/\.js$/, '.ts');
}

/** Every module specifier of `file`: imports, exports-from, import(), import types, require(). */
function importsOf(file: string, source = PARSED.get(file) as ts.SourceFile): Import[] {
  const found: Import[] = [];
  const add = (node: ts.Node, specifier: string) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
    found.push({ from: file, line, specifier, target: resolveTarget(file, specifier) });
  };
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node, node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const isLoad =
        callee.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(callee) && callee.text === 'require');
      const [first] = node.arguments;
      if (isLoad) add(node, first && ts.isStringLiteralLike(first) ? first.text : '<computed>');
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node, node.argument.literal.text);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      add(node, node.moduleReference.expression.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const IMPORTS = FILES.flatMap((file) => importsOf(file));

/** "from -> to" of every import that crosses the table, with where it is. */
function crossings(): Map<string, string> {
  const out = new Map<string, string>();
  for (const imp of IMPORTS) {
    if (imp.target === undefined) continue;
    const from = layerOf(imp.from);
    const to = layerOf(imp.target);
    if (from === undefined || to === undefined || MAY_IMPORT[from].includes(to)) continue;
    out.set(
      `${imp.from} -> ${imp.target}`,
      `src/${imp.from}:${imp.line} imports '${imp.specifier}'`,
    );
  }
  return out;
}

describe('architecture: import layering of src/', () => {
  it('puts every module in a layer', () => {
    assert.ok(FILES.length > 50, `found ${FILES.length} modules under ${SRC}`);
    const unplaced = FILES.filter((file) => layerOf(file) === undefined);
    assert.deepEqual(unplaced, [], 'add new modules to the layer table in this test');
  });

  it('finds every form of import', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "import './c.js';",
      "export { d } from './d.js';",
      "export * from './e.js';",
      "const f = await import('./f.js');",
      "type G = typeof import('./g.js');",
      "import h = require('./h.js');",
      "const i = require('i');",
      '// import { no } from "./comment.js";',
      "const s = 'import x from \\'./string.js\\'';",
    ].join('\n');
    const source = ts.createSourceFile('screen/x.ts', text, ts.ScriptTarget.Latest, true);
    assert.deepEqual(
      importsOf('screen/x.ts', source).map((i) => [i.specifier, i.target]),
      [
        ['./a.js', 'screen/a.ts'],
        ['../b.js', 'b.ts'],
        ['./c.js', 'screen/c.ts'],
        ['./d.js', 'screen/d.ts'],
        ['./e.js', 'screen/e.ts'],
        ['./f.js', 'screen/f.ts'],
        ['./g.js', 'screen/g.ts'],
        ['./h.js', 'screen/h.ts'],
        ['i', undefined],
      ],
    );
  });

  for (const layer of Object.keys(MAY_IMPORT) as Layer[]) {
    it(`${layer} imports only ${MAY_IMPORT[layer].join(', ')}`, () => {
      const found = [...crossings()]
        .filter(([key]) => layerOf(key.split(' -> ')[0] as string) === layer)
        .filter(([key]) => !PENDING.includes(key))
        .map(([, where]) => where);
      assert.deepEqual(found, [], `imports against the layering:\n${found.join('\n')}`);
    });
  }

  it('lists in PENDING only crossings that still exist', () => {
    const existing = crossings();
    assert.deepEqual(
      PENDING.filter((key) => !existing.has(key)),
      [],
      'these are fixed: remove them from PENDING',
    );
  });
});

describe('architecture: packages and process control', () => {
  const packages = IMPORTS.filter((i) => !i.specifier.startsWith('.'));

  for (const { name, owner } of PACKAGE_OWNERS) {
    it(`imports ${name} only in ${owner}`, () => {
      const users = packages
        .filter(
          (i) =>
            i.specifier === name || i.specifier.startsWith(name.endsWith('/') ? name : `${name}/`),
        )
        .map((i) => i.from);
      assert.deepEqual([...new Set(users)], [owner]);
    });
  }

  it(`lets ${PLAIN_LAYERS.join(', ')} import only node builtins, zod and packages they own`, () => {
    const owned = (i: Import) =>
      PACKAGE_OWNERS.some(({ name, owner }) => owner === i.from && i.specifier.startsWith(name));
    const found = packages
      .filter((i) => PLAIN_LAYERS.includes(layerOf(i.from) as Layer))
      .filter((i) => !i.specifier.startsWith('node:') && i.specifier !== 'zod' && !owned(i))
      .map((i) => `src/${i.from}:${i.line} imports '${i.specifier}'`);
    assert.deepEqual(found, []);
  });

  it('calls process.kill only in pty/terminate.ts', () => {
    const callers: string[] = [];
    for (const [file, source] of PARSED) {
      const visit = (node: ts.Node) => {
        if (
          ts.isPropertyAccessExpression(node) &&
          ts.isIdentifier(node.expression) &&
          node.expression.text === 'process' &&
          node.name.text === 'kill'
        ) {
          callers.push(file);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    assert.deepEqual([...new Set(callers)], ['pty/terminate.ts']);
  });
});

describe('architecture: one owner per error code', () => {
  const builds = FILES.flatMap((file) => errorBuilds(file).map((b) => ({ ...b, file })));

  it('finds the code of each build, literal or not', () => {
    const text = [
      "throw new TerminalError('WAIT_TIMEOUT', 'waited');",
      'return new TerminalError(\n  "NOT_READY",\n  `not ready`,\n);',
      'const c = code; new TerminalError(c, m);',
      "new Error('WAIT_TIMEOUT');",
    ].join('\n');
    const source = ts.createSourceFile('session/x.ts', text, ts.ScriptTarget.Latest, true);
    assert.deepEqual(
      errorBuilds('session/x.ts', source).map((b) => b.code),
      ['WAIT_TIMEOUT', 'NOT_READY', undefined],
    );
  });

  it('builds a code that is not a literal only where COMPUTED_CODES says', () => {
    const found = builds
      .filter((b) => b.code === undefined && !(b.file in COMPUTED_CODES))
      .map((b) => `src/${b.file}:${b.line}`);
    assert.deepEqual(found, [], 'pass the code as a literal, in the module that owns it');
  });

  it('names every code of ERROR_CODES, and only those', () => {
    assert.deepEqual(Object.keys(ERROR_OWNERS).sort(), [...ERROR_CODES].sort());
    for (const b of builds) {
      if (b.code !== undefined) assert.ok(b.code in ERROR_OWNERS, `src/${b.file}:${b.line}`);
    }
  });

  for (const code of ERROR_CODES) {
    it(`builds ${code} only in ${ERROR_OWNERS[code].join(', ')}`, () => {
      const literal = builds.filter((b) => b.code === code).map((b) => b.file);
      const computed = Object.keys(COMPUTED_CODES).filter((file) =>
        COMPUTED_CODES[file]?.includes(code),
      );
      const builders = [...new Set([...literal, ...computed])].sort();
      assert.deepEqual(
        builders,
        [...ERROR_OWNERS[code]].sort(),
        `${code} is built in: ${builds
          .filter((b) => b.code === code)
          .map((b) => `src/${b.file}:${b.line}`)
          .join(', ')}`,
      );
    });
  }
});
