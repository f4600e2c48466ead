import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  encode,
  MAX_INPUT_CHUNK,
  parseClientMessage,
  parseServerMessage,
} from '../../../src/attach/protocol.js';

describe('attach protocol', () => {
  it('reads the four client messages', () => {
    for (const message of [
      { type: 'list' },
      { type: 'list', pid: 4242, proofFd: 21 },
      { type: 'attach', sessionId: 't3', readOnly: false, cols: 80, rows: 24 },
      { type: 'attach', sessionId: 't3', readOnly: true, cols: 80, rows: 24, pid: 7, proofFd: 0 },
      { type: 'input', data: 'ls\r' },
      { type: 'size', cols: 100, rows: 30 },
      // 0: a size the terminal has not reported yet.
      { type: 'attach', sessionId: 't3', readOnly: false, cols: 0, rows: 0 },
      { type: 'size', cols: 0, rows: 0 },
      { type: 'size', cols: 120, rows: 0 },
    ] as const) {
      const line = encode(message);
      assert.ok(line.endsWith('\n'));
      assert.deepEqual(parseClientMessage(line.trimEnd()), { ok: true, message });
    }
  });

  it('refuses what is not one, saying why', () => {
    const bad = [
      'not json',
      '[]',
      'null',
      '{"type":"shell","command":"rm -rf /"}',
      '{"type":"list","extra":1}',
      '{"type":"attach","sessionId":"t1","readOnly":"no","cols":80,"rows":24}',
      '{"type":"attach","sessionId":"","readOnly":false,"cols":80,"rows":24}',
      '{"type":"size","cols":-1,"rows":24}',
      '{"type":"size","cols":80,"rows":10001}',
      '{"type":"attach","sessionId":"t1","readOnly":false,"rows":24}',
      '{"type":"size","cols":1.5,"rows":24}',
      '{"type":"list","pid":0,"proofFd":3}',
      '{"type":"list","pid":12,"proofFd":-1}',
      '{"type":"list","pid":"12","proofFd":3}',
      '{"type":"input","data":"x","pid":12}',
      `{"type":"input","data":"${'x'.repeat(MAX_INPUT_CHUNK + 1)}"}`,
      '{"__proto__":{"type":"list"}}',
    ];
    for (const line of bad) {
      const parsed = parseClientMessage(line);
      assert.equal(parsed.ok, false, line.slice(0, 80));
      if (!parsed.ok) assert.ok(parsed.reason.length > 0);
    }
  });

  it('never throws on any line', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (line) => {
        parseClientMessage(line);
        parseServerMessage(line);
      }),
    );
  });

  it('a client skips a server line it does not understand', () => {
    assert.equal(parseServerMessage('{"no":"type"}'), undefined);
    assert.equal(parseServerMessage('garbage'), undefined);
    assert.deepEqual(parseServerMessage('{"type":"future","x":1}'), { type: 'future', x: 1 });
  });
});
