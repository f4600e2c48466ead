/**
 * The reads of node-pty's private fields: each shape-checked against plain objects (present,
 * missing, of another type), and found on a real node-pty terminal.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pty from 'node-pty';
import {
  destroyPty,
  interceptMasterDestroy,
  masterOf,
  ptsNameOf,
} from '../../../src/pty/pty-internals.js';
import { waitUntil } from '../../helpers/wait.js';

/** A stand-in for node-pty's read stream: records the destroys that reach it. */
function socket() {
  const destroyed: (Error | undefined)[] = [];
  return {
    destroyed: false,
    _handle: {} as unknown,
    destroy(error?: Error) {
      destroyed.push(error);
      this.destroyed = true;
      this._handle = null;
      return this;
    },
    calls: destroyed,
  };
}

describe('ptsNameOf', () => {
  it("reads the slave's path, or '' when there is none", () => {
    assert.equal(ptsNameOf({ ptsName: '/dev/pts/3' }), '/dev/pts/3');
    assert.equal(ptsNameOf({}), '');
    assert.equal(ptsNameOf({ ptsName: 3 }), '');
  });
});

describe('masterOf', () => {
  it('gives the descriptor while the read stream is open', () => {
    const s = socket();
    const master = masterOf({ fd: 7, _socket: s });
    assert.equal(master.current(), 7);
    s.destroy();
    assert.equal(master.current(), undefined, 'destroyed');
  });
  it('gives none when a field is missing or of another shape', () => {
    assert.equal(masterOf({ _socket: socket() }).current(), undefined);
    assert.equal(masterOf({ fd: 7 }).current(), undefined);
    assert.equal(masterOf({ fd: '7', _socket: socket() }).current(), undefined);
    assert.equal(masterOf({ fd: 7, _socket: { ...socket(), _handle: null } }).current(), undefined);
    assert.equal(
      masterOf({ fd: 7, _socket: { destroyed: false, _handle: {} } }).current(),
      undefined,
    );
  });
});

describe('interceptMasterDestroy', () => {
  it('lets the interceptor take a destroy over, to run later with its error', () => {
    const s = socket();
    const held: (() => unknown)[] = [];
    assert.equal(
      interceptMasterDestroy({ _socket: s }, (destroy) => {
        held.push(destroy);
        return true;
      }),
      true,
    );
    const error = new Error('EIO');
    assert.equal(s.destroy(error), s);
    assert.deepEqual(s.calls, [], 'held');
    held[0]?.();
    assert.deepEqual(s.calls, [error]);
  });
  it('lets a destroy the interceptor declines go ahead at once', () => {
    const s = socket();
    interceptMasterDestroy({ _socket: s }, () => false);
    s.destroy();
    assert.deepEqual(s.calls, [undefined]);
  });
  it('is false without a read stream to route', () => {
    assert.equal(
      interceptMasterDestroy({}, () => true),
      false,
    );
    assert.equal(
      interceptMasterDestroy({ _socket: { destroyed: false } }, () => true),
      false,
    );
  });
});

describe('destroyPty', () => {
  it('calls destroy() on the object, and does nothing without one', () => {
    let self: unknown;
    const target = {
      destroy() {
        self = this;
      },
    };
    destroyPty(target);
    assert.equal(self, target);
    assert.doesNotThrow(() => destroyPty({}));
  });
});

describe('node-pty internals, on a real terminal', { skip: process.platform === 'win32' }, () => {
  it('are all found: the slave path, the master descriptor, its stream; destroy closes it', async () => {
    const term = pty.spawn('/bin/sh', ['-c', 'sleep 30'], { cols: 80, rows: 24, encoding: null });
    let routed = 0;
    try {
      assert.match(ptsNameOf(term), /^\/dev\/(pts\/\d+|ttys\d+)$/);
      const master = masterOf(term);
      assert.equal(typeof master.current(), 'number');
      assert.equal(
        interceptMasterDestroy(term, () => {
          routed++;
          return false;
        }),
        true,
      );
      destroyPty(term);
      await waitUntil(() => master.current() === undefined, 'the master closed');
      assert.ok(routed >= 1, 'the destroy went through the interceptor');
    } finally {
      term.kill('SIGKILL');
    }
  });
});
