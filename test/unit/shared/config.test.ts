import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import {
  type Config,
  DEFAULT_CONFIG,
  formatOptionsHelp,
  HTTP_DEFAULT_CONFIG,
  loadConfig,
  OPTIONS,
} from '../../../src/shared/config.js';
import { TerminalError } from '../../../src/shared/errors.js';

describe('loadConfig', () => {
  it('returns the defaults, frozen, when nothing is given', () => {
    const config = loadConfig([], {});
    assert.deepEqual(config, DEFAULT_CONFIG);
    assert.ok(Object.isFrozen(config));
  });

  it('serve --http closes sessions unused for a day unless told otherwise', () => {
    assert.equal(loadConfig([], {}, HTTP_DEFAULT_CONFIG).idleTimeoutMs, 24 * 3600 * 1000);
    assert.equal(loadConfig([], {}).idleTimeoutMs, 0, 'stdio keeps them while its client lives');
    assert.equal(loadConfig(['--idle-timeout', '0'], {}, HTTP_DEFAULT_CONFIG).idleTimeoutMs, 0);
    assert.equal(
      loadConfig([], { AGENT_TTY_IDLE_TIMEOUT: '60000' }, HTTP_DEFAULT_CONFIG).idleTimeoutMs,
      60_000,
    );
    assert.deepEqual(
      { ...HTTP_DEFAULT_CONFIG, idleTimeoutMs: 0 },
      { ...DEFAULT_CONFIG },
      'nothing else differs',
    );
  });

  const accepted: [string, string[], Record<string, string>, Partial<Config>][] = [
    ['env', [], { AGENT_TTY_MAX_SESSIONS: '3' }, { maxSessions: 3 }],
    [
      'every env variable',
      [],
      {
        AGENT_TTY_MAX_SESSIONS: '2',
        AGENT_TTY_COLS: '80',
        AGENT_TTY_ROWS: '24',
        AGENT_TTY_SCROLLBACK: '0',
        AGENT_TTY_LOG_LEVEL: 'debug',
      },
      { maxSessions: 2, defaultCols: 80, defaultRows: 24, scrollbackLines: 0, logLevel: 'debug' },
    ],
    ['an empty env value is ignored', [], { AGENT_TTY_COLS: '' }, {}],
    ['flag with a separate value', ['--cols', '100'], {}, { defaultCols: 100 }],
    ['flag with =value', ['--rows=30'], {}, { defaultRows: 30 }],
    ['flag overrides env', ['--cols', '90'], { AGENT_TTY_COLS: '80' }, { defaultCols: 90 }],
    [
      '=value overrides env',
      ['--log-level=error'],
      { AGENT_TTY_LOG_LEVEL: 'info' },
      { logLevel: 'error' },
    ],
    ['the last flag wins', ['--cols=90', '--cols', '91'], {}, { defaultCols: 91 }],
    [
      'bounds are inclusive',
      ['--max-sessions', '64', '--cols=2', '--rows=200'],
      {},
      {
        maxSessions: 64,
        defaultCols: 2,
        defaultRows: 200,
      },
    ],
    ['other variables are ignored', [], { COLUMNS: '10', AGENT_TTY_OTHER: 'x' }, {}],
    [
      'a relative --record-dir is made absolute against the working directory',
      ['--record-dir', 'casts/../recs'],
      {},
      { recordDir: resolve(process.cwd(), 'recs') },
    ],
    [
      'a relative AGENT_TTY_RECORD_DIR is made absolute',
      [],
      { AGENT_TTY_RECORD_DIR: 'recs' },
      { recordDir: resolve(process.cwd(), 'recs') },
    ],
    ['an empty --record-dir stays off', ['--record-dir='], {}, { recordDir: '' }],
    ['--transcript-bytes in bytes', ['--transcript-bytes', '1000'], {}, { transcriptBytes: 1000 }],
    ['--transcript-bytes with K', ['--transcript-bytes=64K'], {}, { transcriptBytes: 65_536 }],
    [
      'AGENT_TTY_TRANSCRIPT_BYTES with M or MiB',
      [],
      { AGENT_TTY_TRANSCRIPT_BYTES: '8MiB' },
      { transcriptBytes: 8 * 1024 * 1024 },
    ],
    [
      '--transcript-bytes up to 4G',
      ['--transcript-bytes', '4g'],
      {},
      { transcriptBytes: 4 * 1024 ** 3 },
    ],
    ['--transcript-bytes 0 keeps none', ['--transcript-bytes', '0'], {}, { transcriptBytes: 0 }],
    [
      '--transcript-dir, resolved',
      ['--transcript-dir', 'spool'],
      {},
      { transcriptDir: resolve('spool') },
    ],
    [
      'AGENT_TTY_TRANSCRIPT_DIR',
      [],
      { AGENT_TTY_TRANSCRIPT_DIR: '/var/tmp' },
      { transcriptDir: '/var/tmp' },
    ],
    [
      '--no-command-marks takes no value',
      ['--no-command-marks', '--cols', '90'],
      {},
      { commandMarks: false, defaultCols: 90 },
    ],
    [
      'AGENT_TTY_COMMAND_MARKS=0 turns them off',
      [],
      { AGENT_TTY_COMMAND_MARKS: '0' },
      { commandMarks: false },
    ],
    ['AGENT_TTY_COMMAND_MARKS=1 keeps them', [], { AGENT_TTY_COMMAND_MARKS: '1' }, {}],
    [
      '--no-command-marks overrides env',
      ['--no-command-marks'],
      { AGENT_TTY_COMMAND_MARKS: '1' },
      { commandMarks: false },
    ],
  ];
  for (const [name, argv, env, changes] of accepted) {
    it(name, () => {
      assert.deepEqual(loadConfig(argv, env), { ...DEFAULT_CONFIG, ...changes });
    });
  }

  const rejected: [string, string[], Record<string, string>, RegExp][] = [
    ['unknown flag', ['--colour'], {}, /unknown option "--colour"/],
    ['unknown flag with a value', ['--nope=1'], {}, /unknown option "--nope=1"/],
    ['a positional argument', ['bash'], {}, /unknown option "bash"/],
    ['a missing value', ['--cols'], {}, /--cols needs a value/],
    [
      'not a number',
      ['--cols', 'wide'],
      {},
      /--cols: expected an integer from 2 to 500, got "wide"/,
    ],
    ['a fraction', ['--rows=1.5'], {}, /--rows: expected an integer/],
    ['a negative number', ['--scrollback=-1'], {}, /--scrollback: expected an integer/],
    ['an empty =value', ['--cols='], {}, /--cols: expected an integer/],
    ['below the minimum', ['--max-sessions', '0'], {}, /from 1 to 64, got "0"/],
    ['above the maximum', ['--max-sessions', '65'], {}, /from 1 to 64, got "65"/],
    ['a bad log level', ['--log-level', 'loud'], {}, /--log-level: expected one of debug, info/],
    [
      'a transcript bound that is not a byte count',
      ['--transcript-bytes', '32 megs'],
      {},
      /--transcript-bytes: expected a byte count from 0 to 68719476736 \(K, M or G suffix allowed, as in 32M\), got "32 megs"/,
    ],
    ['a transcript bound over 64G', ['--transcript-bytes', '65G'], {}, /from 0 to 68719476736/],
    ['a fractional transcript bound', ['--transcript-bytes', '1.5M'], {}, /a byte count/],
    [
      'a value given to --no-command-marks',
      ['--no-command-marks=1'],
      {},
      /--no-command-marks takes no value; to set it from a value use AGENT_TTY_COMMAND_MARKS/,
    ],
    [
      'a bad AGENT_TTY_COMMAND_MARKS',
      [],
      { AGENT_TTY_COMMAND_MARKS: 'yes' },
      /^AGENT_TTY_COMMAND_MARKS: expected 1 \(on\) or 0 \(off\), got "yes"/,
    ],
    [
      'a bad env value names the variable',
      [],
      { AGENT_TTY_ROWS: 'x' },
      /^AGENT_TTY_ROWS: expected/,
    ],
  ];
  for (const [name, argv, env, message] of rejected) {
    it(`rejects ${name}`, () => {
      assert.throws(
        () => loadConfig(argv, env),
        (err) =>
          err instanceof TerminalError &&
          err.code === 'INVALID_ARGUMENT' &&
          message.test(err.message),
      );
    });
  }

  it('has a flag, an AGENT_TTY_ variable and help for every option', () => {
    for (const option of OPTIONS) {
      assert.match(option.flag, /^--[a-z-]+$/);
      assert.match(option.env, /^AGENT_TTY_[A-Z_]+$/);
      assert.ok(option.key in DEFAULT_CONFIG);
      assert.ok(option.help.length > 0);
    }
  });
});

describe('formatOptionsHelp', () => {
  const help = formatOptionsHelp([['--help, -h', 'show this help and exit']]);

  it('lists every option with its environment variable, in lines of at most 100 columns', () => {
    for (const option of OPTIONS) {
      const name = option.flagValue === undefined ? `${option.flag} <value>` : option.flag;
      assert.ok(help.includes(`  ${name}`), option.flag);
      assert.ok(help.includes(`env ${option.env}\n`) || help.endsWith(`env ${option.env}`));
    }
    assert.match(help, /^ {2}--help, -h {14}show this help and exit$/m);
    assert.deepEqual(
      help.split('\n').filter((line) => line.length > 100),
      [],
    );
  });

  it('shows the defaults DEFAULT_CONFIG has', () => {
    const flat = help.replace(/\n +/g, ' ');
    assert.match(
      flat,
      new RegExp(`--max-sessions <value> .*\\(default ${DEFAULT_CONFIG.maxSessions}\\)`),
    );
    assert.match(flat, new RegExp(`--cols <value> .*\\(default ${DEFAULT_CONFIG.defaultCols}\\)`));
    assert.match(flat, new RegExp(`--rows <value> .*\\(default ${DEFAULT_CONFIG.defaultRows}\\)`));
    assert.match(flat, /--transcript-bytes <value> .*\(default 512M\)/);
    assert.match(flat, /--log-level <value> .*\(default warn\)/);
  });
});
