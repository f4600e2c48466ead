import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { exitOfMarker, recordingToTest } from '../../../src/cli/recording-to-test.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-tty-cast-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function cast(name: string, events: [number, string, string][]): string {
  const file = join(dir, name);
  const header = { version: 2, width: 40, height: 6, command: 'python3 -q' };
  writeFileSync(file, [header, ...events].map((e) => JSON.stringify(e)).join('\n'));
  return file;
}

describe('a recording turned into a test script', () => {
  it('expects a prompt another row already shows on the cursor row, not anywhere', async () => {
    const file = cast('repl.cast', [
      [0.1, 'o', '>>> '],
      [0.5, 'i', '1+1\r'],
      [0.6, 'o', '1+1\r\n2\r\n>>> '],
      [1.2, 'i', '\x04'],
      [1.3, 'o', '\r\n'],
      [1.4, 'm', 'exit 0'],
    ]);
    const script = (await recordingToTest(file)) as { steps: Record<string, unknown>[] };
    assert.deepEqual(script.steps, [
      { type: 'wait', pattern: '>>>', timeoutMs: 10_000 },
      { type: 'text', text: '1+1' },
      { type: 'key', key: 'Enter' },
      // `>>>` is on row 1 too: a wait for it would match at once.
      { type: 'expect', text: '>>>', row: 3, timeoutMs: 10_000 },
      { type: 'key', key: 'd', modifiers: ['Ctrl'] },
      { type: 'expect', text: '>>>' },
      { type: 'expectExit', code: 0 },
    ]);
  });

  it('ends without expectExit when the recording marks no exit', async () => {
    const file = cast('open.cast', [
      [0.1, 'o', 'Name? '],
      [0.5, 'i', 'Ada\r'],
    ]);
    const script = (await recordingToTest(file)) as { steps: { type: string }[] };
    assert.deepEqual(
      script.steps.map((s) => s.type),
      ['wait', 'text', 'key', 'expect'],
    );
  });

  it('reads the exit markers the recorder writes, and nothing else', () => {
    assert.deepEqual(exitOfMarker('exit 3'), { code: 3 });
    assert.deepEqual(exitOfMarker('exit signal SIGTERM'), { signal: 'SIGTERM' });
    assert.equal(exitOfMarker('chapter 1'), undefined);
    assert.equal(exitOfMarker('exit -1'), undefined);
  });
});
