import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TerminalError } from '../../../src/shared/errors.js';
import { LOG_LEVELS } from '../../../src/shared/log.js';
import {
  byteSize,
  configError,
  integer,
  logLevel,
  onOff,
} from '../../../src/shared/option-values.js';

/** Asserts `read` throws INVALID_ARGUMENT whose message quotes the raw value. */
function rejects(read: () => unknown, raw: string, expected?: RegExp): void {
  assert.throws(read, (error: unknown) => {
    assert.ok(error instanceof TerminalError);
    assert.equal(error.code, 'INVALID_ARGUMENT');
    assert.ok(error.message.includes(`got "${raw}"`), error.message);
    if (expected) assert.match(error.message, expected);
    return true;
  });
}

describe('integer', () => {
  const read = integer(1, 100);

  it('reads decimal integers within the range, the bounds included', () => {
    assert.deepEqual(['1', '42', '100', ' 7 ', '007'].map(read), [1, 42, 100, 7, 7]);
  });

  it('rejects values out of range, signs, fractions, exponents, hex and blanks', () => {
    for (const raw of ['0', '101', '-1', '+5', '1.5', '1e2', '0x10', '', ' ', 'ten', '5k']) {
      rejects(() => read(raw), raw, /expected an integer from 1 to 100/);
    }
  });

  it('rejects integers past the safe range even when the range allows them', () => {
    const wide = integer(0, Number.MAX_VALUE);
    assert.equal(wide(String(Number.MAX_SAFE_INTEGER)), Number.MAX_SAFE_INTEGER);
    rejects(() => wide('9007199254740993'), '9007199254740993');
  });
});

describe('byteSize', () => {
  const read = byteSize(1, 4 * 1024 ** 3);

  it('reads plain bytes and K, M, G as powers of 1024, in either case, with optional iB/B', () => {
    assert.deepEqual(
      ['512', '1K', '1k', '32M', '32m', '2G', '4KB', '4KiB', '3 M', ' 8MiB '].map(read),
      [
        512,
        1024,
        1024,
        32 * 1024 ** 2,
        32 * 1024 ** 2,
        2 * 1024 ** 3,
        4096,
        4096,
        3 * 1024 ** 2,
        8 * 1024 ** 2,
      ],
    );
  });

  it('checks the range after the suffix is applied', () => {
    const small = byteSize(1024, 1024 ** 2);
    assert.equal(small('1K'), 1024);
    assert.equal(small('1M'), 1024 ** 2);
    rejects(() => small('1023'), '1023', /from 1024 to 1048576/);
    rejects(() => small('2M'), '2M');
    rejects(() => small('0K'), '0K');
  });

  it('rejects other units, fractions, negatives and blanks', () => {
    for (const raw of ['1T', '1.5M', '-1K', 'M', '', 'KB', '1 K B', '1MM', 'lots']) {
      rejects(() => read(raw), raw, /K, M or G suffix allowed/);
    }
  });
});

describe('onOff', () => {
  it('reads 1 as on and 0 as off', () => {
    assert.equal(onOff('1'), true);
    assert.equal(onOff('0'), false);
  });

  it('rejects every other spelling', () => {
    for (const raw of ['true', 'false', 'on', 'off', 'yes', '', ' 1', '01', '2']) {
      rejects(() => onOff(raw), raw, /expected 1 \(on\) or 0 \(off\)/);
    }
  });
});

describe('logLevel', () => {
  it('accepts each log level as written', () => {
    for (const level of LOG_LEVELS) assert.equal(logLevel(level), level);
    assert.ok(LOG_LEVELS.includes('debug') && LOG_LEVELS.includes('silent'));
  });

  it('rejects other case, blanks and unknown names, listing the levels', () => {
    for (const raw of ['DEBUG', 'Info', '', 'verbose', ' warn']) {
      rejects(() => logLevel(raw), raw, new RegExp(LOG_LEVELS.join(', ')));
    }
  });
});

describe('configError', () => {
  it('is INVALID_ARGUMENT with the message as given', () => {
    const error = configError('bad value');
    assert.ok(error instanceof TerminalError);
    assert.equal(error.code, 'INVALID_ARGUMENT');
    assert.equal(error.message, 'bad value');
  });
});
