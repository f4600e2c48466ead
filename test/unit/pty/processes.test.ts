import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  linuxProcessTable,
  listSessionSync,
  parseProcStat,
  parsePsSession,
  scanProcSync,
} from '../../../src/pty/processes.js';

const TAIL = '4194560 1234 0 0 0 5 2 0 0 20 0 1 0 12345 1000000 200';

describe('parseProcStat', () => {
  const cases: [string, string, ReturnType<typeof parseProcStat>][] = [
    [
      'a plain command name',
      `4321 (bash) S 4000 4321 4321 34816 4400 ${TAIL}\n`,
      { state: 'S', ppid: 4000, pgrp: 4321, session: 4321, tpgid: 4400 },
    ],
    [
      'a name with ") " and spaces',
      `77 (evil) S 1 2 (x) R 10 70 60 0 -1 ${TAIL}`,
      { state: 'R', ppid: 10, pgrp: 70, session: 60, tpgid: -1 },
    ],
    [
      'a name that is only ") "',
      `5 () ) Z 1 5 5 0 -1 ${TAIL}`,
      { state: 'Z', ppid: 1, pgrp: 5, session: 5, tpgid: -1 },
    ],
    [
      'a name with parentheses and digits',
      `9 (a(1) 2) T 8 9 3 34817 9 ${TAIL}`,
      { state: 'T', ppid: 8, pgrp: 9, session: 3, tpgid: 9 },
    ],
    ['no closing parenthesis', '12 (broken S 1 2 3 4 5', undefined],
    ['too few fields', '12 (short) S 1 2', undefined],
    ['empty text', '', undefined],
  ];
  for (const [name, text, expected] of cases) {
    it(name, () => {
      assert.deepEqual(parseProcStat(text), expected);
    });
  }
});

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
    assert.deepEqual(found, { pid: process.pid, pgrp: stat.pgrp, state: 'R' });
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
