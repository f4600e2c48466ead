/**
 * The PATH order (client-path.ts) run by real shells: the client's entries first, then what the
 * startup files added, each once, the private variable gone; which shells get it, and the argv of
 * a login command.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import {
  CLIENT_PATH_VARIABLE,
  FISH_PATH_ORDER,
  loginCommandArgs,
  POSIX_PATH_ORDER,
  pathDialect,
} from '../../../src/session/client-path.js';
import { which } from '../../helpers/programs.js';

/** [client PATH, PATH after the startup files, expected PATH]. */
const CASES: [string, string, string][] = [
  ['/c1:/c2', '/p1:/c2:/p2:/p1', '/c1:/c2:/p1:/p2'],
  ['/c1:/c1', '/c1', '/c1'],
  ['/a b:/x*y:/[z]', '/usr/bin:/a b:/[z]', '/a b:/x*y:/[z]:/usr/bin'],
  ['/c', '/usr/bin:/bin', '/c:/usr/bin:/bin'],
];
/** Empty entries (the working directory) stay, once; fish turns them into `.` itself. */
const POSIX_ONLY: [string, string, string][] = [['/c1::/c2', '/p1:', '/c1::/c2:/p1']];

const POSIX = [
  ['sh', []],
  ['dash', []],
  ['bash', ['--norc']],
  ['zsh', ['-f']],
] as const;

function run(shell: string, flags: readonly string[], code: string, client: string, path: string) {
  const bin = which(shell) as string;
  return execFileSync(
    '/usr/bin/env',
    ['-i', `PATH=${path}`, `${CLIENT_PATH_VARIABLE}=${client}`, bin, ...flags, '-c', code],
    {
      encoding: 'utf8',
    },
  ).trimEnd();
}

describe('the PATH order in real shells', () => {
  for (const [shell, flags] of POSIX) {
    it(shell, { skip: !which(shell) && `${shell} is not installed` }, () => {
      const show = `\nprintf '%s|%s\\n' "$PATH" "\${${CLIENT_PATH_VARIABLE}-gone}"`;
      for (const [client, path, expected] of [...CASES, ...POSIX_ONLY]) {
        assert.equal(run(shell, flags, POSIX_PATH_ORDER + show, client, path), `${expected}|gone`);
      }
    });
  }
  it('fish', { skip: !which('fish') && 'fish is not installed' }, () => {
    const show = `; printf '%s|%s\\n' (string join : -- $PATH) (set -q ${CLIENT_PATH_VARIABLE}; and echo left; or echo gone)`;
    for (const [client, path, expected] of CASES) {
      assert.equal(run('fish', [], FISH_PATH_ORDER + show, client, path), `${expected}|gone`);
    }
  });
  it('leaves PATH alone when the variable is not set', () => {
    const out = execFileSync('/bin/sh', ['-c', `${POSIX_PATH_ORDER}\nprintf '%s' "$PATH"`], {
      encoding: 'utf8',
      env: { PATH: '/p1:/p2' },
    });
    assert.equal(out, '/p1:/p2');
  });
});

describe('which shells get it', () => {
  const cases: [string, string | undefined][] = [
    ['/bin/bash', 'posix'],
    ['sh', 'posix'],
    ['/usr/bin/zsh', 'posix'],
    ['/bin/dash', 'posix'],
    ['/usr/local/bin/fish', 'fish'],
    ['/bin/tcsh', undefined],
    ['nu', undefined],
    ['/usr/bin/python3', undefined],
  ];
  for (const [shell, dialect] of cases) {
    it(`${shell} → ${dialect ?? 'left as it is'}`, () => assert.equal(pathDialect(shell), dialect));
  }
  it('login command arguments', () => {
    assert.deepEqual(loginCommandArgs('/bin/bash', 'ls'), ['-l', '-c', `${POSIX_PATH_ORDER}\nls`]);
    assert.deepEqual(loginCommandArgs('fish', 'ls'), [
      '-l',
      '--init-command',
      FISH_PATH_ORDER,
      '-c',
      'ls',
    ]);
    assert.equal(loginCommandArgs('/bin/tcsh', 'ls'), undefined);
    assert.ok(!POSIX_PATH_ORDER.includes('\n'), 'one line: the command is line 2');
  });
});
