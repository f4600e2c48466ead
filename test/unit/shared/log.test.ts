import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger, LOG_LEVELS, type LogLevel } from '../../../src/shared/log.js';

/** The lines a logger at `level` writes when told one message at each level. */
function linesAt(level: LogLevel): string[] {
  const lines: string[] = [];
  const logger = createLogger(level, (line) => lines.push(line));
  logger.debug('d');
  logger.info('i');
  logger.warn('w');
  logger.error('e');
  return lines;
}

describe('createLogger', () => {
  it('writes one prefixed line per message at or above its level', () => {
    assert.deepEqual(linesAt('debug'), [
      'agent-tty debug: d\n',
      'agent-tty info: i\n',
      'agent-tty warn: w\n',
      'agent-tty error: e\n',
    ]);
    assert.deepEqual(linesAt('warn'), ['agent-tty warn: w\n', 'agent-tty error: e\n']);
    assert.deepEqual(linesAt('error'), ['agent-tty error: e\n']);
    assert.deepEqual(linesAt('silent'), []);
  });

  it('knows the levels in order', () => {
    assert.deepEqual(LOG_LEVELS, ['debug', 'info', 'warn', 'error', 'silent']);
  });
});
