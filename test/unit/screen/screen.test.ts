import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Screen } from '../../../src/screen/screen.js';

const screenOf = () => new Screen({ cols: 80, rows: 24, scrollback: 10, onReply: () => undefined });

describe('Screen', () => {
  it('waits for what arrived before the wait, not for output that keeps coming after it', async () => {
    const screen = screenOf();
    const lines = Buffer.from('12345\r\n'.repeat(100_000));
    screen.write(lines);
    screen.write(Buffer.from('\x1b]0;before\x07'));
    const waited = screen.whenParsed().then(() => ({
      title: screen.title,
      pending: screen.pendingBytes,
    }));
    // Arrives while the first is parsed: under a flood that never pauses, there is always more.
    await new Promise((resolve) => setImmediate(resolve));
    screen.write(lines);
    screen.write(Buffer.from('\x1b]0;after\x07'));
    const at = await waited;
    assert.equal(at.title, 'before', 'what came before the wait is parsed');
    assert.ok(at.pending > 0, 'and the wait ended without waiting for what came after it');
    await screen.whenParsed();
    assert.equal(screen.title, 'after');
    screen.dispose();
  });

  it('parses sessions in turns: a flood in one leaves another answering at once', async () => {
    const flooded = screenOf();
    const quiet = screenOf();
    let flooding = true;
    const flood = () => {
      if (!flooding) return;
      flooded.write(Buffer.from(`${'x'.repeat(100)}\r\n`.repeat(5000)));
      setImmediate(flood);
    };
    flood();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const started = performance.now();
    quiet.write(Buffer.from('hello'));
    await quiet.whenParsed();
    const ms = performance.now() - started;
    flooding = false;
    await flooded.whenParsed();
    assert.equal(quiet.rowTexts()[0]?.text, 'hello');
    assert.ok(ms < 200, `the quiet screen waited ${ms.toFixed(0)} ms`);
    flooded.dispose();
    quiet.dispose();
  });
});
