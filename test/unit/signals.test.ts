/** Which signals run the server's shutdown (spec/guarantees.md, Guarantee 3). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shutdownSignals } from '../../src/signals.js';

describe('shutdownSignals', () => {
  it('on Linux: every signal that ends a process and can be caught safely, each once', {
    skip: process.platform !== 'linux' && 'the Linux list',
  }, () => {
    assert.deepEqual(shutdownSignals([], '', 'linux').sort(), [
      'SIGABRT',
      'SIGALRM',
      'SIGHUP',
      'SIGINT',
      'SIGIO',
      'SIGPROF',
      'SIGPWR',
      'SIGQUIT',
      'SIGSTKFLT',
      'SIGSYS',
      'SIGTERM',
      'SIGUSR1',
      'SIGUSR2',
      'SIGVTALRM',
      'SIGXCPU',
    ]);
  });

  it('leaves SIGPROF to V8 when its sampling profiler was asked for', () => {
    for (const [argv, options] of [
      [['--cpu-prof'], ''],
      [[], '--prof --max-old-space-size=100'],
      [['--cpu-prof-dir=/tmp', '--cpu-prof'], ''],
    ] as const) {
      assert.equal(shutdownSignals(argv, options).includes('SIGPROF'), false, `${argv} ${options}`);
    }
    assert.equal(shutdownSignals(['--heap-prof'], '').includes('SIGPROF'), true);
  });

  it('never takes a signal Node ignores, a fault, or one that cannot be caught', () => {
    const taken = shutdownSignals();
    for (const name of [
      'SIGPIPE',
      'SIGXFSZ',
      'SIGSEGV',
      'SIGBUS',
      'SIGFPE',
      'SIGILL',
      'SIGTRAP',
      'SIGKILL',
      'SIGSTOP',
      'SIGCHLD',
      'SIGWINCH',
    ]) {
      assert.equal(taken.includes(name as NodeJS.Signals), false, name);
    }
  });
});
