/**
 * InputWriter's own rules (src/pty/input-writer.ts) against a scripted descriptor: order of input
 * and replies, partial writes, back-off while the terminal is full, the reply bound, and that
 * nothing is written once the descriptor is gone or an error ends the terminal.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputWriter } from '../../../src/pty/input-writer.js';
import { FakeTimers } from '../../helpers/fakes.js';

function setup(options: { room?: number; fd?: () => number | undefined; fail?: string } = {}) {
  const timers = new FakeTimers(1);
  const written: string[] = [];
  let calls = 0;
  const state = { room: options.room ?? Number.POSITIVE_INFINITY };
  const writer = new InputWriter(
    { current: options.fd ?? (() => 7) },
    {
      limitBytes: 100,
      replyLimitBytes: 10,
      timers,
      write: (_fd, data, offset, length) => {
        calls++;
        if (options.fail) throw Object.assign(new Error(options.fail), { code: options.fail });
        if (state.room === 0) throw Object.assign(new Error('EAGAIN'), { code: 'EAGAIN' });
        const taken = Math.min(length, state.room);
        state.room -= taken;
        written.push(Buffer.from(data.subarray(offset, offset + taken)).toString());
        return taken;
      },
    },
  );
  return { writer, timers, written, state, calls: () => calls };
}

describe('InputWriter', () => {
  it('writes at once, in order, replies and input alike', () => {
    const { writer, written } = setup();
    writer.write(Buffer.from('ab'));
    assert.equal(writer.reply(Buffer.from('R')), true);
    writer.write(Buffer.from('cd'));
    assert.deepEqual(written, ['ab', 'R', 'cd']);
    assert.equal(writer.pendingBytes, 0);
  });

  it('keeps what the terminal does not take and writes it, in order, once there is room', () => {
    const { writer, timers, written, state } = setup({ room: 3 });
    writer.write(Buffer.from('hello'));
    writer.write(Buffer.from('!'));
    assert.deepEqual(written, ['hel']);
    assert.equal(writer.pendingBytes, 3);
    assert.equal(writer.hasRoom(97), true);
    assert.equal(writer.hasRoom(98), false);
    state.room = 100;
    timers.advance(100);
    assert.deepEqual(written.join(''), 'hello!');
    assert.equal(writer.pendingBytes, 0);
  });

  it('backs off while the terminal stays full: a few dozen attempts a second, not a spin', () => {
    const { writer, timers, calls } = setup({ room: 0 });
    writer.write(Buffer.from('x'));
    timers.advance(1000);
    assert.ok(calls() <= 40, `${calls()} write attempts in a second`);
    assert.ok(calls() >= 20, `still retrying: ${calls()} attempts`);
  });

  it('drops replies beyond their bound and counts them', () => {
    const { writer } = setup({ room: 0 });
    let accepted = 0;
    for (let i = 0; i < 10; i++) if (writer.reply(Buffer.from('abc'))) accepted++;
    assert.equal(accepted, 3);
    assert.equal(writer.droppedReplies, 7);
    assert.equal(writer.pendingBytes, 0, 'replies are not input');
  });

  it('discards the queue when closed and never writes again', () => {
    const { writer, timers, written, state, calls } = setup({ room: 2 });
    writer.write(Buffer.from('abcdef'));
    assert.equal(writer.close(), 4);
    state.room = 100;
    writer.write(Buffer.from('more'));
    assert.equal(writer.reply(Buffer.from('R')), false);
    const before = calls();
    timers.advance(1000);
    assert.deepEqual(written, ['ab']);
    assert.equal(calls(), before);
    assert.equal(writer.discardedBytes, 4);
  });

  it('stops, without writing, once the descriptor is gone', () => {
    let fd: number | undefined = 9;
    const { writer, timers, state, calls } = setup({ room: 1, fd: () => fd });
    writer.write(Buffer.from('abc'));
    const before = calls();
    fd = undefined;
    state.room = 100;
    timers.advance(1000);
    assert.equal(calls(), before);
    assert.equal(writer.closed, true);
    assert.equal(writer.pendingBytes, 0);
  });

  it('stops at an error other than a full buffer (EIO after the program is gone)', () => {
    const { writer, timers, calls } = setup({ fail: 'EIO' });
    writer.write(Buffer.from('abc'));
    writer.write(Buffer.from('def'));
    timers.advance(1000);
    assert.equal(calls(), 1);
    assert.equal(writer.closed, true);
  });
});
