import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type ProcStat, parseProcStat, readProcStat } from '../../../src/pty/proc-stat.js';

/** Fields 6 (flags) to 17 (cstime) of a stat line: utime 1234, stime 56. */
const TAIL = '4194560 1234 0 0 0 1234 56 0 0 20 0 1 0 12345 1000000 200';

function stat(fields: Partial<ProcStat>): ProcStat {
  return {
    pid: 1,
    comm: 'x',
    state: 'S',
    ppid: 0,
    pgrp: 0,
    session: 0,
    ttyNr: 0,
    tpgid: -1,
    utime: 1234,
    stime: 56,
    ...fields,
  };
}

describe('parseProcStat', () => {
  const cases: [string, string, ProcStat | undefined][] = [
    [
      'a plain command name',
      `4321 (bash) S 4000 4321 4321 34816 4400 ${TAIL}\n`,
      stat({
        pid: 4321,
        comm: 'bash',
        ppid: 4000,
        pgrp: 4321,
        session: 4321,
        ttyNr: 34816,
        tpgid: 4400,
      }),
    ],
    [
      'a name with ") " and spaces',
      `77 (evil) S 1 2 (x) R 10 70 60 0 -1 ${TAIL}`,
      stat({ pid: 77, comm: 'evil) S 1 2 (x', state: 'R', ppid: 10, pgrp: 70, session: 60 }),
    ],
    [
      'a name that is only ") "',
      `5 () ) Z 1 5 5 0 -1 ${TAIL}`,
      stat({ pid: 5, comm: ') ', state: 'Z', ppid: 1, pgrp: 5, session: 5 }),
    ],
    [
      'a name with parentheses and digits',
      `9 (a(1) 2) T 8 9 3 34817 9 ${TAIL}`,
      stat({
        pid: 9,
        comm: 'a(1) 2',
        state: 'T',
        ppid: 8,
        pgrp: 9,
        session: 3,
        ttyNr: 34817,
        tpgid: 9,
      }),
    ],
    [
      'cut before the CPU times',
      '12 (short) S 1 2 3 4 5',
      stat({
        pid: 12,
        comm: 'short',
        ppid: 1,
        pgrp: 2,
        session: 3,
        ttyNr: 4,
        tpgid: 5,
        utime: Number.NaN,
        stime: Number.NaN,
      }),
    ],
    ['no closing parenthesis', '12 (broken S 1 2 3 4 5', undefined],
    ['no opening parenthesis', '12 broken) S 1 2 3 4 5', undefined],
    ['too few fields', '12 (short) S 1 2', undefined],
    ['empty text', '', undefined],
  ];
  for (const [name, text, expected] of cases) {
    it(name, () => {
      assert.deepEqual(parseProcStat(text), expected);
    });
  }

  it('reads any command name back, whatever it holds', () => {
    const field = fc.integer({ min: -1, max: 2 ** 31 - 1 });
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.constantFrom('R', 'S', 'D', 'T', 't', 'Z', 'X'),
        fc.array(field, { minLength: 8, maxLength: 8 }),
        (comm, state, [pid, ppid, pgrp, session, ttyNr, tpgid, utime, stime]) => {
          const line = `${Math.abs(pid as number)} (${comm}) ${state} ${ppid} ${pgrp} ${session} ${ttyNr} ${tpgid} 0 0 0 0 0 ${utime} ${stime} 0 0\n`;
          assert.deepEqual(parseProcStat(line), {
            pid: Math.abs(pid as number),
            comm,
            state,
            ppid,
            pgrp,
            session,
            ttyNr,
            tpgid,
            utime,
            stime,
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('reads this process from /proc/self/stat', {
    skip: process.platform !== 'linux' && 'needs /proc',
  }, () => {
    const self = parseProcStat(readFileSync('/proc/self/stat', 'latin1'));
    assert.ok(self);
    assert.equal(self.pid, process.pid);
    assert.equal(self.ppid, process.ppid);
    assert.equal(self.state, 'R');
    assert.ok(self.utime >= 0 && self.stime >= 0);
  });
});

describe('readProcStat', () => {
  it('reads this process, and nothing for a pid that is not there', {
    skip: process.platform === 'linux' ? false : '/proc is Linux',
  }, () => {
    const own = readProcStat(process.pid);
    assert.equal(own?.pid, process.pid);
    assert.equal(own?.ppid, process.ppid);
    assert.equal(readProcStat(2 ** 31 - 1), undefined);
  });
});
