import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyLine, classifyOverlong, describeId } from '../../../src/transport/classify.js';

/** The verdict as [kind, id, code] (code 0: no error reply). */
function judge(line: string): [string, unknown, number] {
  const verdict = classifyLine(line);
  if (verdict.kind === 'reply') {
    const reply = verdict.reply as unknown as { id: unknown; error: { code: number } };
    return ['reply', reply.id, reply.error.code];
  }
  if (verdict.kind === 'request') return ['request', verdict.id, 0];
  return [verdict.kind, undefined, 0];
}

describe('classifyLine', () => {
  const rows: [string, [string, unknown, number]][] = [
    ['{"jsonrpc":"2.0","id":1,"method":"ping"}', ['request', 1, 0]],
    ['{"jsonrpc":"2.0","id":"a","method":"ping","extra":1}', ['request', 'a', 0]],
    [
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"progressToken":{}}}}',
      ['reply', 1, -32602],
    ],
    [
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"progressToken":1.5}}}',
      ['reply', 1, -32602],
    ],
    ['{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":[]}}', ['reply', 1, -32602]],
    ['{"jsonrpc":"2.0","id":1,"method":"x","params":[]}', ['reply', 1, -32602]],
    ['{"jsonrpc":"2.0","id":1,"method":"x","params":"s"}', ['reply', 1, -32600]],
    ['{"jsonrpc":"1.0","id":1,"method":"x"}', ['reply', 1, -32600]],
    ['{"jsonrpc":"2.0","id":1.5,"method":"x"}', ['reply', null, -32600]],
    ['{"jsonrpc":"2.0","id":9007199254740993,"method":"x"}', ['reply', null, -32600]],
    ['{"jsonrpc":"2.0","id":true,"method":"x"}', ['reply', null, -32600]],
    ['{"jsonrpc":"2.0","id":1}', ['reply', 1, -32600]],
    ['{"jsonrpc":"2.0"}', ['reply', null, -32600]],
    ['{', ['reply', null, -32700]],
    ['[]', ['reply', null, -32600]],
    ['"x"', ['reply', null, -32600]],
    ['{"jsonrpc":"2.0","method":"notifications/x"}', ['notification', undefined, 0]],
    ['{"jsonrpc":"2.0","method":"notifications/x","extra":1}', ['notification', undefined, 0]],
    ['{"jsonrpc":"2.0","method":"notifications/x","params":[]}', ['ignore', undefined, 0]],
    ['{"jsonrpc":"1.0","method":"notifications/x"}', ['ignore', undefined, 0]],
    ['{"jsonrpc":"2.0","id":1,"result":{}}', ['response', undefined, 0]],
    ['{"jsonrpc":"2.0","id":1,"error":"bad"}', ['ignore', undefined, 0]],
    ['   ', ['ignore', undefined, 0]],
  ];
  for (const [line, expected] of rows) {
    it(line, () => assert.deepEqual(judge(line), expected));
  }

  it('passes on only the members JSON-RPC defines', () => {
    const verdict = classifyLine('{"jsonrpc":"2.0","id":1,"method":"ping","extra":1}');
    assert.equal(verdict.kind, 'request');
    assert.deepEqual((verdict as { message: unknown }).message, {
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
    });
  });
});

describe('classifyOverlong', () => {
  const limit = 10 * 1024 * 1024;
  const idOf = (head: string, tail: string) => {
    const verdict = classifyOverlong(head, tail, limit);
    return verdict.kind === 'reply' ? (verdict.reply as unknown as { id: unknown }).id : 'none';
  };

  it('recovers the id from the start or the end of a well-formed message', () => {
    assert.equal(idOf('{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"', 'aaaa"}}'), 7);
    assert.equal(idOf('{"id":"r-1","method":"x"', 'x'), 'r-1');
    assert.equal(
      idOf('{"method":"tools/call","params":{"x":"', 'x"},"jsonrpc":"2.0","id":42}'),
      42,
    );
  });

  it('answers null when the id is nested, fractional or absent, and nothing to a notification', () => {
    assert.equal(idOf('{"params":{"id":3,"x":"', 'x"}}'), null);
    assert.equal(idOf('{"jsonrpc":"2.0","id":1.5,"method":"x"', 'x"}'), null);
    assert.equal(idOf('[1,2,3', '3]'), null);
    assert.equal(
      idOf('{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"', 'a"}}'),
      'none',
    );
  });
});

describe('describeId', () => {
  it('quotes string ids, shows hidden characters and cuts long ids', () => {
    assert.equal(describeId(7), '7');
    assert.equal(describeId('a\u001b\u202eb'), '"a\\u001b\uFFFDb"');
    assert.ok(describeId('x'.repeat(500)).length <= 81);
  });
});
