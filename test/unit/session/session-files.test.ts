/**
 * A session's private files in real directories: the shell history and start-up files made
 * under the temporary directory and removed by remove(), the transcript placed in the directory
 * given, and each one a session runs without (logged) when its directory cannot be made.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { LaunchPlan } from '../../../src/session/launch.js';
import { openSessionFiles, type SessionFilesSpec } from '../../../src/session/session-files.js';
import {
  MEMORY_FALLBACK_BYTES,
  TRANSCRIPT_DIR_PREFIX,
} from '../../../src/session/transcript-files.js';
import { DEFAULT_CONFIG } from '../../../src/shared/config.js';
import { createLogger, type Logger } from '../../../src/shared/log.js';

const originalTmp = process.env.TMPDIR;
let tmp = '';

before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'agent-tty-test-session-files-'));
});
afterEach(() => {
  process.env.TMPDIR = tmp;
});
after(() => {
  if (originalTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = originalTmp;
  rmSync(tmp, { recursive: true, force: true });
});

function loggerOf(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger('debug', (line) => lines.push(line)), lines };
}

const bash: LaunchPlan = {
  file: '/bin/bash',
  args: [],
  cwd: '/',
  env: { PATH: '/usr/bin:/bin' },
  command: null,
  login: false,
  sessionHistory: true,
};

const specOf = (
  id: string,
  plan: Partial<LaunchPlan> = {},
  extra: Partial<SessionFilesSpec> = {},
) => ({
  id,
  plan: { ...bash, ...plan },
  ...extra,
});

/** A fresh temporary directory the session's files go under (TMPDIR), and its entries. */
function freshTmp(): { dir: string; entries: () => string[] } {
  const dir = mkdtempSync(join(tmp, 'under-'));
  process.env.TMPDIR = dir;
  return { dir, entries: () => readdirSync(dir).sort() };
}

describe('openSessionFiles', () => {
  it('makes the history and start-up files of an interactive shell, and remove() removes them', () => {
    const { dir, entries } = freshTmp();
    const { logger, lines } = loggerOf();
    const files = openSessionFiles(specOf('f1'), { logger });
    assert.ok(files.history, 'a private history');
    assert.ok(files.integration, 'command marks');
    assert.ok(
      files.history.file.startsWith(join(dir, 'agent-tty-history-f1-')),
      files.history.file,
    );
    assert.match(files.integration.nonce, /^[0-9a-f]{12}$/);
    const made = entries();
    assert.equal(made.length, 2, made.join(' '));
    assert.ok(made.some((name) => name.startsWith('agent-tty-history-f1-')));
    assert.ok(made.some((name) => name.startsWith('agent-tty-shell-f1-')));
    const shellDir = join(dir, made.find((n) => n.startsWith('agent-tty-shell-')) as string);
    assert.equal(statSync(shellDir).mode & 0o777, 0o700);
    assert.ok(readdirSync(shellDir).length > 0, 'start-up files are written');
    assert.deepEqual(files.transcript, { limitBytes: DEFAULT_CONFIG.transcriptBytes });
    files.remove();
    assert.deepEqual(entries(), []);
    files.remove();
    assert.deepEqual(lines, [], 'nothing to log');
  });

  it('makes no history when the caller names HISTFILE, and no marks when they are off', () => {
    const { entries } = freshTmp();
    const { logger } = loggerOf();
    const files = openSessionFiles(specOf('f2', { sessionHistory: false }), {
      logger,
      commandMarks: false,
    });
    assert.equal(files.history, undefined);
    assert.equal(files.integration, undefined);
    assert.deepEqual(entries(), []);
    files.remove();
  });

  it('makes no start-up files for a command, only its history', () => {
    const { entries } = freshTmp();
    const { logger } = loggerOf();
    const files = openSessionFiles(specOf('f3', { command: 'ls', file: '/bin/sh' }), { logger });
    assert.equal(files.integration, undefined);
    assert.ok(files.history);
    assert.equal(entries().length, 1);
    files.remove();
    assert.deepEqual(entries(), []);
  });

  it('places the transcript in the directory given, with the bound asked for', () => {
    freshTmp();
    const root = mkdtempSync(join(tmp, 'transcripts-'));
    const { logger, lines } = loggerOf();
    const files = openSessionFiles(specOf('f4', {}, { transcriptBytes: 8 * 1024 * 1024 }), {
      logger,
      transcriptDir: root,
    });
    assert.equal(files.transcript.limitBytes, 8 * 1024 * 1024);
    assert.ok(files.transcript.store, 'a store on disk');
    assert.equal(files.transcript.error, undefined);
    const placed = readdirSync(root);
    assert.equal(placed.length, 1);
    assert.ok(placed[0]?.startsWith(`${TRANSCRIPT_DIR_PREFIX}f4-`), placed[0]);
    files.remove();
    assert.equal(readdirSync(root).length, 1, 'the transcript goes with the screen, not remove()');
    files.transcript.store?.remove();
    assert.deepEqual(readdirSync(root), []);
    assert.deepEqual(lines, []);
  });

  it('keeps the transcript in memory, saying why in the log, when its directory cannot be made', () => {
    freshTmp();
    const file = join(tmp, 'a-file');
    writeFileSync(file, '');
    const { logger, lines } = loggerOf();
    const files = openSessionFiles(specOf('f5'), { logger, transcriptDir: join(file, 'below') });
    assert.equal(files.transcript.store, undefined);
    assert.equal(files.transcript.limitBytes, MEMORY_FALLBACK_BYTES);
    assert.match(files.transcript.error ?? '', /kept in memory.*could not be made/);
    assert.equal(lines.length, 1, lines.join(''));
    assert.match(lines[0] ?? '', /^agent-tty warn: session f5: the transcript is kept in memory/);
    files.remove();
  });

  it('runs without history and marks, saying so in the log, when the temporary directory is missing', () => {
    process.env.TMPDIR = join(tmp, 'does-not-exist');
    const { logger, lines } = loggerOf();
    const files = openSessionFiles(specOf('f6'), { logger });
    assert.equal(files.history, undefined);
    assert.equal(files.integration, undefined);
    assert.equal(lines.length, 2, lines.join(''));
    assert.ok(
      lines.some((l) =>
        /^agent-tty warn: session f6: no command marks \(.*ENOENT.*\); its shell starts without them/.test(
          l,
        ),
      ),
      lines.join(''),
    );
    assert.ok(
      lines.some((l) =>
        /^agent-tty warn: session f6: no private shell history \(.*ENOENT.*\); its shells use their default history file/.test(
          l,
        ),
      ),
      lines.join(''),
    );
    files.remove();
  });
});
