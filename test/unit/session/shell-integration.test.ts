/**
 * What a session injects into its shell for command marks: which launches get it (interactive
 * bash, zsh, fish), the private directory and files (0700 / 0600, removed), how each shell is
 * pointed at them, and that each shell parses the files it is given (`-n`).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import {
  CLIENT_PATH_VARIABLE,
  FISH_PATH_ORDER,
  POSIX_PATH_ORDER,
} from '../../../src/session/client-path.js';
import {
  createShellIntegration,
  markedShell,
  type ShellLaunch,
} from '../../../src/session/shell-integration.js';
import { quoteFish, quotePosix, ZSH_FILES } from '../../../src/session/shell-scripts.js';
import { which } from '../../helpers/programs.js';

const launch = (file: string, over: Partial<ShellLaunch> = {}): ShellLaunch => ({
  file,
  args: [],
  env: { HOME: '/home/u' },
  login: false,
  command: null,
  ...over,
});

const mode = (path: string) => statSync(path).mode & 0o777;

describe('markedShell', () => {
  const cases: [ShellLaunch, string | undefined][] = [
    [launch('bash'), 'bash'],
    [launch('/usr/bin/zsh'), 'zsh'],
    [launch('/opt/fish/bin/fish', { login: true, args: ['-l'] }), 'fish'],
    [launch('bash', { command: 'make' }), undefined],
    [launch('/bin/sh'), undefined],
    [launch('dash'), undefined],
    [launch('python3'), undefined],
    [launch('/usr/bin/bashful'), undefined],
  ];
  for (const [l, expected] of cases) {
    it(`${l.file}${l.command ? ` -c ${l.command}` : ''} → ${expected}`, () => {
      assert.equal(markedShell(l), expected);
    });
  }
});

describe('createShellIntegration', () => {
  it('bash: --rcfile to a private file that reads ~/.bashrc, or the login files for a login shell', () => {
    for (const login of [false, true]) {
      const made = createShellIntegration(
        't1',
        launch('bash', { login, args: login ? ['-l'] : [] }),
      );
      assert.ok(made);
      try {
        const [flag, rc] = made.launch.args;
        assert.equal(flag, '--rcfile');
        assert.equal(made.launch.args.length, 2, 'no -l: bash ignores --rcfile in a login shell');
        const dir = dirname(rc as string);
        assert.ok(dir.startsWith(join(tmpdir(), 'agent-tty-shell-t1-')), dir);
        assert.equal(mode(dir), 0o700);
        assert.equal(mode(rc as string), 0o600);
        const text = readFileSync(rc as string, 'utf8');
        assert.match(made.nonce, /^[0-9a-f]{12}$/);
        assert.ok(text.includes(`aid=${made.nonce}`));
        assert.ok(text.includes(`: >| ${quotePosix(rc as string)}`), 'it empties itself');
        if (login) {
          assert.match(text, /\. \/etc\/profile/);
          assert.match(text, /~\/\.bash_profile[\s\S]*~\/\.bash_login[\s\S]*~\/\.profile/);
          assert.doesNotMatch(text, /\.bashrc/);
        } else {
          assert.match(text, /\. ~\/\.bashrc/);
          assert.doesNotMatch(text, /profile/);
        }
        assert.deepEqual(made.launch.env, { HOME: '/home/u' }, 'the environment is untouched');
        made.remove();
        assert.equal(existsSync(dir), false, 'removed');
        made.remove();
      } finally {
        made.remove();
      }
    }
  });

  it('zsh: ZDOTDIR names a private directory of the four startup files, the hooks and the server', () => {
    const made = createShellIntegration(
      't2',
      launch('zsh', { env: { HOME: '/home/u', ZDOTDIR: "/home/u/it's" } }),
    );
    assert.ok(made);
    try {
      const dir = made.launch.env.ZDOTDIR as string;
      assert.equal(mode(dir), 0o700);
      assert.deepEqual(readdirSync(dir).sort(), [
        '.zlogin',
        '.zprofile',
        '.zshenv',
        '.zshrc',
        'marks.zsh',
        // The pid of the server that made it (session/private-dirs.ts).
        'server',
      ]);
      for (const name of readdirSync(dir)) assert.equal(mode(join(dir, name)), 0o600);
      const zshenv = readFileSync(join(dir, '.zshenv'), 'utf8');
      assert.ok(zshenv.includes(`__agent_tty_zd=${quotePosix("/home/u/it's")}`), zshenv);
      assert.ok(zshenv.includes(`source ${quotePosix(join(dir, 'marks.zsh'))}`), zshenv);
      const marks = readFileSync(join(dir, 'marks.zsh'), 'utf8');
      assert.ok(marks.includes(`aid=${made.nonce}`));
      assert.ok(
        marks.trimEnd().endsWith(`: >| ${quotePosix(join(dir, 'marks.zsh'))}; } 2>/dev/null`),
      );
      for (const name of ZSH_FILES) {
        const text = readFileSync(join(dir, name), 'utf8');
        assert.ok(!text.includes(made.nonce), `${name} holds no nonce`);
      }
      assert.deepEqual(made.launch.args, []);
    } finally {
      made.remove();
    }
  });

  it('fish: --init-command sources a private file, after -l', () => {
    const made = createShellIntegration('t3', launch('fish', { login: true, args: ['-l'] }));
    assert.ok(made);
    try {
      const [login, flag, command] = made.launch.args;
      assert.equal(login, '-l');
      assert.equal(flag, '--init-command');
      const file = /^source '(.+)'$/.exec(command as string)?.[1] as string;
      assert.equal(mode(file), 0o600);
      const text = readFileSync(file, 'utf8');
      assert.ok(text.includes(`aid=${made.nonce}`));
      assert.ok(text.includes(`true >${quoteFish(file)}`), 'it empties itself');
    } finally {
      made.remove();
    }
  });

  it('leaves other launches, and bash in POSIX mode, as they are', () => {
    assert.equal(createShellIntegration('t4', launch('python3')), undefined);
    assert.equal(createShellIntegration('t4', launch('bash', { command: 'ls' })), undefined);
    const posix = launch('bash', { env: { POSIXLY_CORRECT: '1' } });
    assert.equal(createShellIntegration('t4', posix), undefined);
  });

  it("puts the session's PATH first again after the user's startup files", () => {
    const env = { HOME: '/home/u', PATH: '/venv/bin:/usr/bin' };
    for (const login of [false, true]) {
      const bash = createShellIntegration('t6', launch('bash', { env, login }));
      const zsh = createShellIntegration('t6', launch('zsh', { env, login }));
      const fish = createShellIntegration('t6', launch('fish', { env, login }));
      try {
        for (const made of [bash, zsh, fish]) {
          assert.equal(made?.launch.env[CLIENT_PATH_VARIABLE], env.PATH);
        }
        const rc = readFileSync(bash?.launch.args[1] as string, 'utf8');
        const last = login ? /\. ~\/\.profile/ : /\. ~\/\.bashrc/;
        assert.ok(rc.indexOf(POSIX_PATH_ORDER) > (last.exec(rc)?.index ?? Infinity), rc);
        const dir = zsh?.launch.env.ZDOTDIR as string;
        for (const name of ZSH_FILES) {
          const text = readFileSync(join(dir, name), 'utf8');
          const isLast = name === (login ? '.zlogin' : '.zshrc');
          assert.equal(text.includes(POSIX_PATH_ORDER), isLast, name);
          if (isLast) assert.ok(text.indexOf(POSIX_PATH_ORDER) > text.indexOf(`/${name}`), text);
        }
        const init = /^source '(.+)'$/.exec(fish?.launch.args.at(-1) as string)?.[1] as string;
        assert.ok(readFileSync(init, 'utf8').includes(FISH_PATH_ORDER));
      } finally {
        for (const made of [bash, zsh, fish]) made?.remove();
      }
    }
  });

  it('each nonce is new', () => {
    const a = createShellIntegration('t5', launch('bash'));
    const b = createShellIntegration('t5', launch('bash'));
    try {
      assert.notEqual(a?.nonce, b?.nonce);
    } finally {
      a?.remove();
      b?.remove();
    }
  });
});

describe('the startup files parse in their shell', () => {
  const shells: [string, (l: ShellLaunch) => string[]][] = [
    ['bash', (l) => [l.args[1] as string]],
    [
      'zsh',
      (l) => readdirSync(l.env.ZDOTDIR as string).map((f) => join(l.env.ZDOTDIR as string, f)),
    ],
    ['fish', (l) => [/^source '(.+)'$/.exec(l.args.at(-1) as string)?.[1] as string]],
  ];
  for (const [shell, files] of shells) {
    it(shell, { skip: which(shell) ? false : `${shell} is not installed` }, () => {
      for (const login of [false, true]) {
        const made = createShellIntegration('t6', launch(shell, { login }));
        assert.ok(made);
        try {
          for (const file of files(made.launch)) execFileSync(shell, ['-n', file]);
        } finally {
          made.remove();
        }
      }
    });
  }
});

describe('quoting', () => {
  it('quotePosix and quoteFish keep any text one word', () => {
    const text = `a b'c\\d"$e`;
    const zsh = which('zsh');
    if (zsh) {
      const out = execFileSync(zsh, ['-fc', `print -rn -- ${quotePosix(text)}`], {
        encoding: 'utf8',
      });
      assert.equal(out, text);
    }
    const fish = which('fish');
    if (fish) {
      const out = execFileSync(fish, ['-Nc', `printf %s ${quoteFish(text)}`], { encoding: 'utf8' });
      assert.equal(out, text);
    }
    const out = execFileSync('sh', ['-c', `printf %s ${quotePosix(text)}`], { encoding: 'utf8' });
    assert.equal(out, text);
  });
});
