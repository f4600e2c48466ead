import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  MAX_ANCESTRY,
  PeerProof,
  type PeerStat,
  placePeer,
  type SessionsAround,
} from '../../../src/attach/peer.js';

const linuxOnly = process.platform === 'linux' ? false : '/proc is Linux';

/** A process table: pid → [ppid, session, ttyNr]. */
function around(
  table: Record<number, [number, number, number]>,
  extra: Partial<SessionsAround> = {},
): SessionsAround {
  return {
    serverPid: 100,
    servers: new Set([100, 900]),
    sessions: new Map([[200, 't1']]),
    terminals: new Map([[34817, 't1']]),
    readStat: (pid): PeerStat | undefined => {
      const row = table[pid];
      return row && { pid, ppid: row[0], session: row[1], ttyNr: row[2] };
    },
    ...extra,
  };
}

// The person: init 1 → tmux server 50 → shell 60 (session 60, tty 34900) → attach 61.
const PERSON: Record<number, [number, number, number]> = {
  1: [0, 1, 0],
  50: [1, 50, 0],
  60: [50, 60, 34900],
  61: [60, 60, 34900],
  // This server 100 (started by the agent, 90) and its session t1: leader 200, bash job 210.
  90: [1, 90, 34950],
  100: [90, 90, 34950],
  200: [100, 200, 34817],
  210: [200, 200, 34817],
  // A program of t1 left behind by its parent: reparented to init, still in t1's session.
  220: [1, 200, 0],
  // Another server 900 and its session leader 910 with a child 911 left behind (tty gone).
  900: [1, 900, 0],
  910: [900, 910, 34999],
  911: [1, 910, 0],
  // A daemon that left every session (setsid, reparented): outside, as far as /proc can tell.
  230: [1, 230, 0],
};

describe('placePeer', () => {
  it('places a person at their own terminal outside', () => {
    assert.deepEqual(placePeer(61, around(PERSON)), { inside: false });
  });

  it('places a program in a session inside, naming the session', () => {
    for (const pid of [200, 210]) {
      assert.deepEqual(placePeer(pid, around(PERSON)), {
        inside: true,
        where: 'session t1 of this agent-tty server',
      });
    }
  });

  it('finds one that left the process tree by its session, or its terminal', () => {
    assert.equal(placePeer(220, around(PERSON)).inside, true);
    const byTerminal = around({ ...PERSON, 220: [1, 220, 34817] });
    assert.equal(placePeer(220, byTerminal).inside, true);
  });

  it('places a server itself inside', () => {
    assert.equal(placePeer(100, around(PERSON)).inside, true);
    assert.equal(placePeer(900, around(PERSON)).inside, true);
  });

  it("places another server's programs inside, also once out of its tree", () => {
    assert.deepEqual(placePeer(911, around(PERSON)), {
      inside: true,
      where: 'a session of agent-tty server 900',
    });
    // A process a server started outside any session (not a terminal's program) is its too.
    assert.equal(placePeer(912, around({ ...PERSON, 912: [100, 90, 34950] })).inside, true);
  });

  it('cannot tell a daemon that left its session and its parent', () => {
    assert.deepEqual(placePeer(230, around(PERSON)), { inside: false });
  });

  it('says unknown for a process that is gone or an ancestry too long to follow', () => {
    assert.equal(placePeer(777, around(PERSON)).inside, undefined);
    const deep: Record<number, [number, number, number]> = { 1: [0, 1, 0], 1000: [1, 1, 0] };
    for (let pid = 1001; pid <= 1000 + MAX_ANCESTRY; pid++) deep[pid] = [pid - 1, 1, 0];
    assert.equal(placePeer(1000 + MAX_ANCESTRY - 2, around(deep)).inside, false);
    const place = placePeer(1000 + MAX_ANCESTRY, around(deep));
    assert.equal(place.inside, undefined);
  });
});

describe('PeerProof', { skip: linuxOnly }, () => {
  it('is held by the process that opened it, at that descriptor, and by no other', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-tty-proof-'));
    const proof = PeerProof.create(dir);
    try {
      assert.deepEqual(readdirSync(dir), [], 'its name is removed at once');
      assert.match(proof.path, new RegExp(`^/proc/${process.pid}/fd/\\d+$`));
      const fd = openSync(proof.path, 'r');
      try {
        assert.equal(proof.isHeldBy(process.pid, fd), true);
        assert.equal(proof.isHeldBy(process.pid, fd + 1000), false);
        assert.equal(proof.isHeldBy(process.ppid, fd), false);
        const other = PeerProof.create(dir);
        assert.equal(other.isHeldBy(process.pid, fd), false, 'each connection has its own');
        other.close();
      } finally {
        closeSync(fd);
      }
      assert.equal(proof.isHeldBy(process.pid, fd), false, 'closed, no longer held');
    } finally {
      proof.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
