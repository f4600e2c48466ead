import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseProcStat } from '../../../src/pty/proc-stat.js';
import {
  linuxProcessTable,
  listSessionSync,
  parsePsSession,
  scanProcSync,
} from '../../../src/pty/processes.js';

describe('the Linux process table', { skip: process.platform !== 'linux' && 'needs /proc' }, () => {
  it('parses this process from /proc/self/stat', () => {
    const stat = parseProcStat(readFileSync('/proc/self/stat', 'latin1'));
    assert.ok(stat);
    assert.equal(stat.ppid, process.ppid);
    assert.equal(stat.state, 'R');
  });

  it('lists this process in its own session', () => {
    const stat = parseProcStat(readFileSync('/proc/self/stat', 'latin1'));
    assert.ok(stat);
    const found = listSessionSync(stat.session).find((p) => p.pid === process.pid);
    assert.deepEqual(found, { pid: process.pid, pgrp: stat.pgrp, state: 'R', tpgid: stat.tpgid });
  });

  it('visits each process of the session as it reads it, and says the scan is complete', () => {
    const stat = parseProcStat(readFileSync('/proc/self/stat', 'latin1'));
    assert.ok(stat);
    const visited: number[] = [];
    const scan = scanProcSync(stat.session, (p) => visited.push(p.pid));
    assert.ok(visited.includes(process.pid));
    assert.deepEqual(
      visited,
      scan.procs.map((p) => p.pid),
    );
    assert.equal(scan.complete, true);
  });

  it('knows a live pid from one that does not exist', () => {
    assert.equal(linuxProcessTable.isAlive(process.pid), true);
    assert.equal(linuxProcessTable.isAlive(0x7fffffff), false);
  });
});

describe('the ps process table', () => {
  it('takes the processes on the terminal, in the leader group or the leader, not zombies', () => {
    const out = [
      '  100   100 ttys003 Ss',
      '  101   101 ttys003 S+',
      '  102   102 ttys004 S',
      '  103   100 ??      R',
      '  104   104 ttys003 Z',
      '',
    ].join('\n');
    const visited: number[] = [];
    const scan = parsePsSession(out, 100, '/dev/ttys003', (p) => visited.push(p.pid));
    assert.deepEqual(scan.procs, [
      { pid: 100, pgrp: 100, state: 'S' },
      { pid: 101, pgrp: 101, state: 'S' },
      { pid: 103, pgrp: 100, state: 'R' },
    ]);
    assert.deepEqual(visited, [100, 101, 103]);
    assert.equal(scan.complete, true);
  });
});
