/**
 * A recording never holds the session's command-mark nonce: the output is written with it
 * replaced, wherever the chunks the program wrote split it, and nothing else changes.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Recorder } from '../../../src/session/recorder.js';
import { createLogger } from '../../../src/shared/log.js';

const dir = mkdtempSync(join(tmpdir(), 'agent-tty-recorder-'));
const logger = createLogger('silent');
const SECRET = '0123456789ab';

/** The output events of a closed recording, joined, once the file holds them all (up to END). */
async function recordedOutput(path: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const lines = existsSync(path) ? readFileSync(path, 'utf8').split('\n') : [];
    // The last line is complete only once it ends with a newline: drop what follows it.
    const output = lines
      .slice(1, -1)
      .map((line) => JSON.parse(line) as [number, string, string])
      .filter(([, kind]) => kind === 'o')
      .map(([, , data]) => data)
      .join('');
    if (output.endsWith('END')) return output;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${path} was not completed`);
}

describe('Recorder', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the secret as x’s, wherever the chunks split it', async () => {
    const text = `é prompt \x1b]133;A;aid=${SECRET}\x1b\\ out 0123 ${SECRET}${SECRET}01 END`;
    const bytes = Buffer.from(text, 'utf8');
    const expected = text.replaceAll(SECRET, 'x'.repeat(SECRET.length));
    for (let cut = 0; cut <= bytes.length; cut += 3) {
      const header = { cols: 80, rows: 24, command: null, shell: 'bash' };
      const recorder = Recorder.start(dir, `t${cut}`, header, logger, SECRET);
      recorder.output(bytes.subarray(0, cut));
      recorder.output(bytes.subarray(cut, cut + 5));
      recorder.output(bytes.subarray(cut + 5));
      recorder.close();
      const written = await recordedOutput(recorder.path);
      assert.equal(written, expected, `cut at ${cut}`);
      assert.ok(!readFileSync(recorder.path, 'utf8').includes(SECRET));
    }
  });

  it('holds back nothing without a secret', async () => {
    const recorder = Recorder.start(
      dir,
      'plain',
      { cols: 80, rows: 24, command: 'x', shell: 'sh' },
      logger,
    );
    recorder.output(Buffer.from(`aid=${SECRET.slice(0, 5)} END`));
    recorder.close();
    assert.equal(await recordedOutput(recorder.path), `aid=${SECRET.slice(0, 5)} END`);
  });
});
