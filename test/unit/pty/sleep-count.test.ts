/** The times a process has gone to sleep, from its /proc status text and from /proc itself. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSleepCount, readSleepCount } from '../../../src/pty/sleep-count.js';
import { linuxOnly } from '../../helpers/processes.js';
import { waitUntil } from '../../helpers/wait.js';

describe('parseSleepCount', () => {
  it('reads voluntary_ctxt_switches, not the involuntary ones', () => {
    const status = [
      'Name:\tbash',
      'State:\tS (sleeping)',
      'voluntary_ctxt_switches:\t1234',
      'nonvoluntary_ctxt_switches:\t56',
      '',
    ].join('\n');
    assert.equal(parseSleepCount(status), 1234);
  });
  it('is 0 without the field or without a text', () => {
    assert.equal(parseSleepCount('Name:\tbash\n'), 0);
    assert.equal(parseSleepCount(''), 0);
    assert.equal(parseSleepCount(undefined), 0);
  });
});

describe('readSleepCount', { skip: linuxOnly }, () => {
  it('grows each time the process sleeps; 0 for a process that is gone', async () => {
    const before = readSleepCount(process.pid);
    assert.ok(before > 0);
    // Each wait for a timer puts the main thread to sleep (unless the timer is due by then).
    await waitUntil(() => readSleepCount(process.pid) >= before + 3, 'three sleeps', 2000);
    assert.equal(readSleepCount(4_194_305), 0);
  });
});
