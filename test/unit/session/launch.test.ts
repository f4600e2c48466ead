import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CLIENT_PATH_VARIABLE,
  FISH_PATH_ORDER,
  POSIX_PATH_ORDER,
} from '../../../src/session/client-path.js';
import {
  type LaunchDefaults,
  type LaunchRequest,
  planLaunch,
  TERM,
} from '../../../src/session/launch.js';

const DEFAULTS: LaunchDefaults = {
  cwd: '/home/user/project',
  env: {
    HOME: '/home/user',
    PATH: '/usr/bin:/bin',
    SHELL: '/bin/bash',
    TERM: 'screen-256color',
    LANG: 'C.UTF-8',
    TMUX: '/tmp/tmux-1000/default,123,0',
    TMUX_PANE: '%1',
    STY: '42.pts-0',
    COLUMNS: '80',
    LINES: '24',
    TERM_PROGRAM: 'vscode',
    TERM_PROGRAM_VERSION: '1.0',
    KITTY_WINDOW_ID: '1',
    WEZTERM_PANE: '0',
    ITERM_SESSION_ID: 'w0t0p0',
    UNSET: undefined,
  },
};

function plan(request: LaunchRequest, defaults: LaunchDefaults = DEFAULTS) {
  return planLaunch(request, defaults);
}

describe('planLaunch argv', () => {
  const cases: [string, LaunchRequest, LaunchDefaults, string, string[]][] = [
    [
      'a command in a login shell, the PATH order before it',
      { command: 'ls -la' },
      DEFAULTS,
      '/bin/bash',
      ['-l', '-c', `${POSIX_PATH_ORDER}\nls -la`],
    ],
    ['login: false', { command: 'ls', login: false }, DEFAULTS, '/bin/bash', ['-c', 'ls']],
    ['an interactive shell without a command', {}, DEFAULTS, '/bin/bash', ['-l']],
    ['an interactive non-login shell', { login: false }, DEFAULTS, '/bin/bash', []],
    [
      'an explicit shell',
      { command: 'x', shell: '/bin/zsh' },
      DEFAULTS,
      '/bin/zsh',
      ['-l', '-c', `${POSIX_PATH_ORDER}\nx`],
    ],
    [
      'fish: the PATH order as an --init-command',
      { command: 'x', shell: 'fish' },
      DEFAULTS,
      'fish',
      ['-l', '--init-command', FISH_PATH_ORDER, '-c', 'x'],
    ],
    [
      'a shell that gets no PATH order',
      { command: 'x', shell: '/bin/tcsh' },
      DEFAULTS,
      '/bin/tcsh',
      ['-l', '-c', 'x'],
    ],
    [
      'no $SHELL: /bin/sh',
      { command: 'x' },
      { ...DEFAULTS, env: { PATH: '/bin' } },
      '/bin/sh',
      ['-l', '-c', `${POSIX_PATH_ORDER}\nx`],
    ],
    [
      'no PATH: the command as it is',
      { command: 'x' },
      { ...DEFAULTS, env: { SHELL: '/bin/bash' } },
      '/bin/bash',
      ['-l', '-c', 'x'],
    ],
    ['an empty $SHELL: /bin/sh', {}, { ...DEFAULTS, env: { SHELL: '' } }, '/bin/sh', ['-l']],
    [
      'a command with quotes and newlines kept verbatim',
      { command: `echo 'a b'\necho "$HOME"` },
      DEFAULTS,
      '/bin/bash',
      ['-l', '-c', `${POSIX_PATH_ORDER}\necho 'a b'\necho "$HOME"`],
    ],
  ];
  for (const [name, request, defaults, file, args] of cases) {
    it(name, () => {
      const result = plan(request, defaults);
      assert.equal(result.file, file);
      assert.deepEqual(result.args, args);
      assert.equal(result.command, request.command ?? null);
    });
  }
});

describe('planLaunch environment', () => {
  it('inherits the environment minus variables of the outer terminal', () => {
    const { env } = plan({});
    assert.deepEqual(env, {
      HOME: '/home/user',
      PATH: '/usr/bin:/bin',
      SHELL: '/bin/bash',
      TERM,
      LANG: 'C.UTF-8',
      PWD: '/home/user/project',
      fish_history: '',
    });
  });

  it('forces TERM to xterm-256color, even over the caller', () => {
    assert.equal(TERM, 'xterm-256color');
    assert.equal(plan({ env: { TERM: 'dumb' } }).env.TERM, TERM);
    assert.equal(plan({ unsetEnv: ['TERM'] }).env.TERM, TERM);
  });

  it('applies overrides, and unsetEnv deletes a variable (an override of the same name wins)', () => {
    const { env } = plan({
      env: { LANG: 'en_US.UTF-8', FOO: 'bar', SHELL: '/bin/zsh' },
      unsetEnv: ['HOME', 'NOT_THERE', 'SHELL'],
    });
    assert.equal(env.SHELL, '/bin/zsh');
    assert.equal(env.LANG, 'en_US.UTF-8');
    assert.equal(env.FOO, 'bar');
    assert.equal('HOME' in env, false);
    assert.equal('NOT_THERE' in env, false);
  });

  it('lets the caller set a variable that is not inherited', () => {
    assert.equal(plan({ env: { TMUX: 'mine', COLUMNS: '132' } }).env.TMUX, 'mine');
    assert.equal(plan({ env: { COLUMNS: '132' } }).env.COLUMNS, '132');
  });

  it('does not change the defaults it was given', () => {
    const before = JSON.stringify(DEFAULTS);
    plan({ env: { NEW: '1' }, unsetEnv: ['PATH'] });
    assert.equal(JSON.stringify(DEFAULTS), before);
  });
});

describe('planLaunch PATH order', () => {
  it("passes the session's PATH (the caller's env.PATH over the server's) to a login command", () => {
    assert.equal(plan({ command: 'ls' }).env[CLIENT_PATH_VARIABLE], '/usr/bin:/bin');
    const own = plan({ command: 'ls', env: { PATH: '/venv/bin:/usr/bin' } });
    assert.equal(own.env[CLIENT_PATH_VARIABLE], '/venv/bin:/usr/bin');
  });

  it('passes none to a non-login command, an interactive shell (its startup files get it) or without PATH', () => {
    const inherited = { ...DEFAULTS, env: { ...DEFAULTS.env, [CLIENT_PATH_VARIABLE]: '/old' } };
    for (const request of [
      { command: 'ls', login: false },
      {},
      { command: 'ls', unsetEnv: ['PATH'] },
    ]) {
      assert.equal(CLIENT_PATH_VARIABLE in plan(request, inherited).env, false);
    }
    assert.deepEqual(plan({ command: 'ls', unsetEnv: ['PATH'] }).args, ['-l', '-c', 'ls']);
  });
});

describe('planLaunch shell history', () => {
  const withHistory: LaunchDefaults = {
    ...DEFAULTS,
    env: { ...DEFAULTS.env, HISTFILE: '/home/user/.bash_history', fish_history: 'fish' },
  };

  it('keeps history in the session by default: the session sets HISTFILE, fish keeps it in memory', () => {
    const result = plan({}, withHistory);
    assert.equal(result.sessionHistory, true);
    assert.equal('HISTFILE' in result.env, false, 'the inherited HISTFILE is not passed on');
    assert.equal(result.env.fish_history, '');
  });

  it('does so for commands too, which may start a shell of their own', () => {
    const result = plan({ command: 'bash' });
    assert.equal(result.sessionHistory, true);
    assert.equal(result.env.fish_history, '');
  });

  it("lets the caller's HISTFILE win, or unsetEnv for the shell's default", () => {
    const named = plan({ env: { HISTFILE: '/home/user/.bash_history' } }, withHistory);
    assert.equal(named.sessionHistory, false);
    assert.equal(named.env.HISTFILE, '/home/user/.bash_history');
    const unset = plan({ unsetEnv: ['HISTFILE'] }, withHistory);
    assert.equal(unset.sessionHistory, false);
    assert.equal('HISTFILE' in unset.env, false);
  });

  it("lets the caller's fish_history win, or unsetEnv for fish's default", () => {
    assert.equal(plan({ env: { fish_history: 'work' } }).env.fish_history, 'work');
    assert.equal('fish_history' in plan({ unsetEnv: ['fish_history'] }).env, false);
    assert.equal(plan({ env: { fish_history: 'work' } }).sessionHistory, true);
  });
});

describe('planLaunch cwd', () => {
  const cases: [string, string | undefined, string][] = [
    ['default', undefined, '/home/user/project'],
    ['absolute', '/tmp', '/tmp'],
    ['relative', 'src/lib', '/home/user/project/src/lib'],
    ['parent', '../other', '/home/user/other'],
    ['normalized', '/tmp//a/./b/..', '/tmp/a'],
  ];
  for (const [name, cwd, expected] of cases) {
    it(`${name}: ${cwd ?? '(none)'} -> ${expected}`, () => {
      const result = plan({ cwd });
      assert.equal(result.cwd, expected);
      assert.equal(result.env.PWD, expected);
    });
  }
});
