/**
 * ProgramWatch against real programs in a real PTY (Linux, where /proc can be read): what it says
 * of a program reading its terminal and of one at work, that every answer is "no" once the
 * session is not live, that nothing is told with the probe off, and how confirm() waits.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PtyHandle } from '../../../src/pty/pty-handle.js';
import { spawnPty } from '../../../src/pty/spawn.js';
import { ProgramWatch } from '../../../src/session/program-watch.js';
import { isAsleepInSession } from '../../helpers/processes.js';
import { waitUntil } from '../../helpers/wait.js';

interface Running {
  pty: PtyHandle;
  watch: ProgramWatch;
  live: { value: boolean };
  stop(): void;
}

function run(script: string, enabled = true): Running {
  const pty = spawnPty(
    {
      file: '/bin/sh',
      args: ['-c', script],
      cwd: '/',
      env: { ...(process.env as Record<string, string>), TERM: 'xterm-256color' },
      cols: 80,
      rows: 24,
    },
    { onData: () => undefined, onExit: () => undefined },
  );
  const live = { value: true };
  const watch = new ProgramWatch(pty.pid, pty.ttyPath, enabled, () => live.value);
  return {
    pty,
    watch,
    live,
    stop: () => {
      watch.dispose();
      try {
        process.kill(-pty.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      pty.dispose();
    },
  };
}

describe('ProgramWatch', { skip: process.platform !== 'linux' && 'Linux only' }, () => {
  it('sees the shell itself reading its terminal: waiting, no other foreground', async () => {
    const r = run('exec cat');
    try {
      assert.equal(r.watch.detects, true);
      await waitUntil(() => r.watch.isWaiting(), 'cat waits for input', 5000);
      assert.equal(r.watch.leaderWaits(), true, 'cat is the session leader');
      assert.equal(r.watch.foreground(), undefined, 'the leader is not another program');
      const wait = r.watch.inputWait();
      assert.ok(wait, 'a wait is described');
      assert.equal(typeof r.watch.foregroundCpuMs(), 'number');
      assert.equal(r.watch.othersIdle(), true, 'nothing else runs in the terminal');
    } finally {
      r.stop();
    }
  });

  it('sees a child reading the terminal as the foreground, its shell not waiting', async () => {
    const r = run('cat; :');
    try {
      await waitUntil(() => r.watch.isWaiting(), 'cat waits for input', 5000);
      assert.equal(r.watch.leaderWaits(), false, 'sh waits for its child, not for input');
      assert.equal(r.watch.foreground()?.command, 'cat');
    } finally {
      r.stop();
    }
  });

  it('names no foreground while the shell itself reads, whatever child shares its group', async () => {
    // sleep runs in the leader's own process group, as background jobs of some shells do.
    const r = run('sleep 30 & exec cat');
    try {
      await waitUntil(() => r.watch.leaderWaits(), 'cat, the leader, waits for input', 5000);
      assert.equal(r.watch.foreground(), undefined);
    } finally {
      r.stop();
    }
  });

  it('sees a sleeping program as not waiting for input', async () => {
    const r = run('sleep 30; :');
    try {
      await waitUntil(() => isAsleepInSession(r.pty.pid), 'sleep sleeps', 5000);
      assert.equal(r.watch.isWaiting(), false);
      assert.equal(r.watch.leaderWaits(), false);
      assert.equal(r.watch.inputWait(), undefined);
      assert.deepEqual(r.watch.foreground()?.command, 'sleep');
    } finally {
      r.stop();
    }
  });

  it('answers no (or nothing) to everything once the session is not live', async () => {
    const r = run('exec cat');
    try {
      await waitUntil(() => r.watch.isWaiting(), 'cat waits for input', 5000);
      r.live.value = false;
      assert.equal(r.watch.isWaiting(), false);
      assert.equal(r.watch.leaderWaits(), false);
      assert.equal(r.watch.inputWait(), undefined);
      assert.equal(r.watch.othersIdle(), false);
      assert.equal(r.watch.foregroundCpuMs(), undefined);
      assert.equal(r.watch.foreground(), undefined);
      let asked = false;
      const barrier = async () => {
        asked = true;
        return true;
      };
      assert.equal(
        await r.watch.confirm({ barrier }, { whenParsed: async () => undefined }),
        false,
      );
      assert.equal(asked, false, 'no barrier is sent for a session that is not live');
    } finally {
      r.stop();
    }
  });

  it('tells nothing with the probe off, though the program waits', async () => {
    const r = run('cat; :', false);
    try {
      assert.equal(r.watch.detects, false);
      // A watch with the probe on sees the wait the one with it off does not tell.
      const on = new ProgramWatch(r.pty.pid, r.pty.ttyPath, true, () => true);
      try {
        await waitUntil(() => on.isWaiting(), 'cat waits for input', 5000);
      } finally {
        on.dispose();
      }
      assert.equal(r.watch.isWaiting(), false);
      assert.equal(r.watch.leaderWaits(), false);
      assert.equal(r.watch.inputWait(), undefined);
      assert.equal(r.watch.othersIdle(), false);
      assert.equal(r.watch.foregroundCpuMs(), undefined);
      r.watch.markInput();
      assert.equal(
        r.watch.foreground()?.command,
        'cat',
        'the foreground is read without the probe',
      );
    } finally {
      r.stop();
    }
  });

  it('confirms a wait after the barrier and the parse, in that order', async () => {
    const r = run('exec cat');
    try {
      await waitUntil(() => r.watch.isWaiting(), 'cat waits for input', 5000);
      const steps: string[] = [];
      const pty = {
        barrier: async () => {
          steps.push('barrier');
          return true;
        },
      };
      const screen = {
        whenParsed: async () => {
          steps.push('parsed');
        },
      };
      assert.equal(await r.watch.confirm(pty, screen), true);
      assert.deepEqual(steps, ['barrier', 'parsed']);
      // With the real PTY's barrier.
      assert.equal(await r.watch.confirm(r.pty, screen), true);
    } finally {
      r.stop();
    }
  });

  it('does not confirm when the barrier fails, and does not wait for the parse then', async () => {
    const r = run('exec cat');
    try {
      await waitUntil(() => r.watch.isWaiting(), 'cat waits for input', 5000);
      let parsedAsked = false;
      const confirmed = await r.watch.confirm(
        { barrier: async () => false },
        {
          whenParsed: async () => {
            parsedAsked = true;
          },
        },
      );
      assert.equal(confirmed, false);
      assert.equal(parsedAsked, false);
    } finally {
      r.stop();
    }
  });

  it('does not confirm a program that stopped waiting meanwhile', async () => {
    const r = run('exec cat');
    try {
      await waitUntil(() => r.watch.isWaiting(), 'cat waits for input', 5000);
      const confirmed = await r.watch.confirm(
        {
          barrier: async () => {
            r.watch.markInput(); // as if input were written now: the wait before it no longer counts
            return true;
          },
        },
        { whenParsed: async () => undefined },
      );
      assert.equal(confirmed, false);
    } finally {
      r.stop();
    }
  });

  it('does not confirm a program at work, asking nothing of the PTY', async () => {
    const r = run('sleep 30; :');
    try {
      await waitUntil(() => r.watch.foreground() !== undefined, 'sleep has started', 5000);
      let asked = false;
      const confirmed = await r.watch.confirm(
        {
          barrier: async () => {
            asked = true;
            return true;
          },
        },
        { whenParsed: async () => undefined },
      );
      assert.equal(confirmed, false);
      assert.equal(asked, false);
    } finally {
      r.stop();
    }
  });
});
