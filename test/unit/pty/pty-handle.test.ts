/** How an exit status becomes the PtyExit a session reports. */
import assert from 'node:assert/strict';
import { constants } from 'node:os';
import { describe, it } from 'node:test';
import { type PtyExit, ptyExitOf } from '../../../src/pty/pty-handle.js';

describe('ptyExitOf', () => {
  const rows: [string, number, number | undefined, PtyExit][] = [
    ['an exit code', 3, undefined, { exitCode: 3, signal: null }],
    ['exit 0', 0, undefined, { exitCode: 0, signal: null }],
    ['signal 0 is no signal', 1, 0, { exitCode: 1, signal: null }],
    ['killed', 0, constants.signals.SIGKILL, { exitCode: null, signal: 'SIGKILL' }],
    ['terminated', 0, constants.signals.SIGTERM, { exitCode: null, signal: 'SIGTERM' }],
    ['hung up', 0, constants.signals.SIGHUP, { exitCode: null, signal: 'SIGHUP' }],
    ['a signal the platform does not name', 0, 200, { exitCode: null, signal: 'SIG200' }],
  ];
  for (const [name, exitCode, signal, expected] of rows) {
    it(name, () => assert.deepEqual(ptyExitOf(exitCode, signal), expected));
  }
});
