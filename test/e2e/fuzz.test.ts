/**
 * Fuzzes the six tools over a real stdio connection: random argument values, valid-
 * looking arguments with a field mutated, and terminal_input batches that must be rejected,
 * sent to a byte reader (test/fixtures/bytes.py) that must receive nothing. Every reply is judged
 * (tools/call result matching the advertised output schema, isError with a documented code, or
 * a JSON-RPC error where the request itself is malformed); the server keeps its pid and keeps
 * answering. Reply-time percentiles are printed as diagnostics. Values live in
 * helpers/fuzz-args.ts; the surface is the one spec/tools.md and spec/errors.md describe.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import fc from 'fast-check';
import {
  type Args,
  mutateOnce,
  rejectedBatch,
  type Schema,
  toJson,
  validAction,
  validValue,
} from '../helpers/fuzz-args.js';
import { HEAVY } from '../helpers/layers.js';
import { FIXTURES, ROOT } from '../helpers/paths.js';
import { isAlive } from '../helpers/processes.js';
import { which } from '../helpers/programs.js';
import {
  type RawRpcServer,
  type RpcReply,
  startRawRpcServer,
  type ToolResult,
} from '../helpers/raw-rpc.js';
import { sleep } from '../helpers/wait.js';

/** Codes with a row in spec/errors.md: the only codes a reply may carry. */
const DOCUMENTED_CODES = new Set(
  [...readFileSync(join(ROOT, 'spec/errors.md'), 'utf8').matchAll(/^\| `([A-Z_]+)` /gm)].map(
    (m) => m[1] as string,
  ),
);
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;
/** The stdio transport's line limit (10 MiB); a longer line is refused whole with -32600. */
const LINE_LIMIT_BYTES = 10 * 1024 * 1024;
const isLineRefusal = (reply: RpcReply) =>
  reply.error?.code === -32600 && /longer than the 10 MiB line limit/.test(reply.error.message);
/** An id that is never open: the server's ids are t1, t2, … and this test starts one. */
const NO_SUCH_ID = 't404';
/** Runs of each property: a representative share in npm test, all of them in the heavy layer. */
const SHARE = HEAVY ? 1 : 0.5;
const runs = (n: number) => Math.round(n * SHARE);

interface Tool {
  name: string;
  inputSchema: Schema;
  outputSchema: Schema;
}

interface Stats {
  calls: number;
  replyMs: number[];
  /** Known tool, arguments not an object: rejected by the SDK before agent-tty sees them. */
  nonObjectArguments: Map<number, number>;
  codes: Map<string, number>;
}

const stats: Stats = { calls: 0, replyMs: [], nonObjectArguments: new Map(), codes: new Map() };
const bump = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);

const isObject = (v: unknown): v is Args =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const missingPython = which('python3') ? false : 'python3 is not installed';

describe('fuzzing the tool surface', { skip: missingPython }, () => {
  let server: RawRpcServer;
  let tools: Tool[];
  let readerId: string;
  const validators = new Map<string, ReturnType<AjvJsonSchemaValidator['getValidator']>>();

  before(async () => {
    // One session at most: the byte reader holds it, so no fuzzed terminal_start can spawn.
    server = await startRawRpcServer(['--max-sessions', '1']);
    const listed = await server.request('tools/list');
    tools = (listed.result as { tools: Tool[] }).tools;
    const ajv = new AjvJsonSchemaValidator();
    for (const tool of tools) validators.set(tool.name, ajv.getValidator(tool.outputSchema));
    const started = await server.tool('terminal_start', {
      command: `python3 ${join(FIXTURES, 'bytes.py')}`,
      login: false,
      cols: 100,
      rows: 30,
    });
    assert.equal(started.isError, undefined, JSON.stringify(started));
    readerId = started.structuredContent?.sessionId as string;
    await waitForScreen(server, readerId, (lines) => lines.includes('READY'));
  });

  after(async () => {
    await server?.stop();
  });

  /** Sends one call, judges its reply, and returns it. */
  async function call(name: string, args: unknown): Promise<RpcReply> {
    const params = args === undefined ? `{"name":${JSON.stringify(name)}}` : undefined;
    const json = params ?? `{"name":${JSON.stringify(name)},"arguments":${toJson(args)}}`;
    const pending = server.sendJson('tools/call', json);
    const reply = await pending.reply;
    stats.calls++;
    stats.replyMs.push(reply.ms);
    // A string of a million lone surrogates is six million bytes of JSON escapes: a mutated
    // call can pass the stdio line limit, which refuses the whole line (spec/guarantees.md).
    if (isLineRefusal(reply)) {
      assert.ok(Buffer.byteLength(json) > LINE_LIMIT_BYTES - 200, 'refused a line under the limit');
      return reply;
    }
    judge(name, args, reply);
    return reply;
  }

  function judge(name: string, args: unknown, reply: RpcReply): void {
    const tool = tools.find((t) => t.name === name);
    const check = (ok: unknown, why: string) => {
      if (ok) return;
      const shown = `${name} ${toJson(args).slice(0, 300)} -> ${JSON.stringify(reply).slice(0, 600)}`;
      assert.fail(`${why}: ${shown}`);
    };
    if (reply.error) {
      const wellFormedCall = args === undefined || isObject(args);
      if (!tool) {
        check(!wellFormedCall || reply.error.code === INVALID_PARAMS, 'unknown tool');
        return;
      }
      check(!wellFormedCall, 'a JSON-RPC error for a well-formed call');
      check([INVALID_PARAMS, INTERNAL_ERROR].includes(reply.error.code), 'JSON-RPC error code');
      bump(stats.nonObjectArguments, reply.error.code);
      return;
    }
    check(tool, 'an unknown tool got a result');
    check(CallToolResultSchema.safeParse(reply.result).success, 'not a tool result');
    const result = reply.result as ToolResult;
    const structured = result.structuredContent;
    check(structured, 'no structured content');
    const valid = validators.get(name)?.(structured);
    check(valid?.valid, `output schema: ${valid?.errorMessage}`);
    const text = result.content?.find((c) => c.type === 'text')?.text ?? '';
    const code = structured?.error?.code;
    if (result.isError) {
      bump(stats.codes, String(code));
      check(code && DOCUMENTED_CODES.has(code), 'an undocumented code');
      check(code !== 'INTERNAL', 'INTERNAL');
      check(text.startsWith(`${code}: `), 'text starts with the code');
    } else {
      bump(stats.codes, 'ok');
      check(name !== 'terminal_start', 'a fuzzed start spawned a program');
      check(code === undefined, 'an error without isError');
    }
  }

  /** Arguments that cannot harm the fixture: no close of it, no input to it, short waits. */
  function defuse(name: string, args: unknown): unknown {
    if (!isObject(args)) return args;
    const out: Args = { ...args };
    const aimsAtReader = out.sessionId === readerId;
    if (aimsAtReader && (name === 'terminal_input' || name === 'terminal_close')) {
      out.sessionId = NO_SUCH_ID;
    }
    if (aimsAtReader) {
      for (const [key, value] of Object.entries(out)) {
        if (key.endsWith('Ms') && typeof value === 'number') out[key] = Math.min(value, 50);
      }
    }
    // Never reached (the session limit refuses every start), but a command stays a comment.
    if (name === 'terminal_start' && typeof out.command === 'string') {
      out.command = `#${out.command.replace(/[\r\n]/g, ' ')}`;
    }
    return out;
  }

  const toolName = () =>
    fc.oneof(
      { arbitrary: fc.constantFrom(...tools.map((t) => t.name)), weight: 6 },
      fc.constantFrom('terminal_Start', 'terminal_start ', 'terminal', '', 'tools/list', '\ud800'),
      fc.string({ maxLength: 20 }),
    );

  const sessionTarget = () =>
    fc.oneof(
      fc.constant(readerId),
      fc.constant(NO_SUCH_ID),
      fc.string({ minLength: 1, maxLength: 70 }),
    );

  /** Valid-looking arguments for `tool` from its input schema, then zero to two mutations. */
  const mutatedArgs = (tool: Tool) => {
    const schema = tool.inputSchema;
    const known = Object.keys(schema.properties ?? {});
    const base = validValue(schema).chain((value) => {
      const args = value as Args;
      const overrides: fc.Arbitrary<Args>[] = [];
      if (known.includes('sessionId'))
        overrides.push(sessionTarget().map((sessionId) => ({ sessionId })));
      if (known.includes('actions')) {
        overrides.push(
          fc.array(validAction, { minLength: 1, maxLength: 4 }).map((actions) => ({ actions })),
        );
      }
      return fc.tuple(...overrides).map((parts) => Object.assign({}, args, ...parts) as Args);
    });
    return base.chain((args) =>
      fc.oneof(
        fc.constant(args),
        mutateOnce(args, known),
        mutateOnce(args, known).chain((once) => mutateOnce(once, known)),
      ),
    );
  };

  it('answers random argument values well-formed, never INTERNAL', {
    timeout: 120_000,
  }, async () => {
    const args = fc.oneof(
      {
        arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), {
          maxKeys: 4,
        }),
        weight: 3,
      },
      { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
      fc.constant(undefined),
    );
    await fc.assert(
      fc.asyncProperty(toolName(), args, async (name, value) => {
        await call(name, defuse(name, value));
      }),
      { numRuns: runs(1500), includeErrorInReport: true },
    );
  });

  it('answers valid-looking arguments with a field mutated well-formed', {
    timeout: 120_000,
  }, async () => {
    const cases = fc
      .constantFrom(...tools)
      .chain((tool) => mutatedArgs(tool).map((a) => [tool.name, a] as const));
    await fc.assert(
      fc.asyncProperty(cases, async ([name, value]) => {
        await call(name, defuse(name, value));
      }),
      { numRuns: runs(2500), includeErrorInReport: true },
    );
  });

  it('sends no byte of a rejected batch', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(rejectedBatch(readerId), async (args) => {
        const reply = await call('terminal_input', args);
        const result = reply.result as ToolResult;
        const { inputSent, actionsCompleted } = result.structuredContent ?? {};
        if (result.isError !== true || inputSent !== false || actionsCompleted !== 0) {
          assert.fail(`not rejected untouched: ${toJson(args).slice(0, 300)}`);
        }
      }),
      { numRuns: runs(1000), includeErrorInReport: true },
    );
    // Send the record delimiter alone: the reader prints what it received since it started.
    const resized = await server.tool('terminal_resize', {
      sessionId: readerId,
      cols: 100,
      rows: 30,
      settleMs: 0,
    });
    assert.equal(resized.isError, undefined, JSON.stringify(resized).slice(0, 300));
    const delimiter = await server.tool('terminal_input', {
      sessionId: readerId,
      actions: [{ type: 'raw', bytes: [0x1f, 0x1f, 0x1f] }],
    });
    assert.equal(delimiter.structuredContent?.inputSent, true);
    const lines = await waitForScreen(server, readerId, (l) => l.some((s) => s.startsWith('>')));
    assert.deepEqual(
      lines.filter((s) => s.startsWith('>')),
      ['>'],
      'the reader received nothing before the delimiter',
    );
  });

  it('keeps its pid, answers terminal_list, and every request got exactly one reply', async (t) => {
    assert.equal(server.isRunning(), true, 'the server never exited');
    assert.equal(isAlive(server.pid), true);
    const listed = await server.tool('terminal_list', {});
    const sessions = listed.structuredContent?.sessions as { sessionId: string; status: string }[];
    assert.deepEqual(
      sessions.map((s) => [s.sessionId, s.status]),
      [[readerId, 'running']],
    );
    assert.deepEqual(server.unanswered(), []);
    assert.deepEqual(server.strays(), []);
    assert.doesNotMatch(server.stderr(), /INTERNAL|failed:/);
    for (const line of report()) t.diagnostic(`fuzz: ${line}`);
  });

  it('answers tools/call with non-object arguments as invalid params', {}, async () => {
    for (const args of [[], null, 'x', 5]) {
      const reply = await server.request('tools/call', { name: 'terminal_list', arguments: args });
      const code = reply.error?.code ?? (reply.result as ToolResult).structuredContent?.error?.code;
      assert.ok(
        code === INVALID_PARAMS || code === 'INVALID_ARGUMENT',
        `${toJson(args)}: ${JSON.stringify(reply)}`,
      );
    }
  });

  function report(): string[] {
    const sorted = [...stats.replyMs].sort((a, b) => a - b);
    const at = (q: number) =>
      (sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0).toFixed(1);
    const lines = [
      `inputs tried: ${stats.calls}`,
      `reply ms: p50 ${at(0.5)}, p90 ${at(0.9)}, p99 ${at(0.99)}, max ${at(1)}`,
      `outcomes: ${[...stats.codes].map(([k, v]) => `${k} ${v}`).join(', ')}`,
      `JSON-RPC errors for non-object arguments: ${[...stats.nonObjectArguments].map(([k, v]) => `${k} x${v}`).join(', ') || 'none'}`,
    ];
    return lines;
  }
});

/** Polls terminal_snapshot (history included) until `predicate` holds; returns its lines. */
async function waitForScreen(
  server: RawRpcServer,
  sessionId: string,
  predicate: (lines: string[]) => boolean,
  timeoutMs = 10_000,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let lines: string[] = [];
  while (Date.now() < deadline) {
    const reply = await server.tool('terminal_snapshot', {
      sessionId,
      scrollbackLines: 2000,
      settleMs: 50,
    });
    const snapshot = reply.structuredContent?.snapshot as
      | { screen: string[]; scrollback?: { lines: string[] } }
      | undefined;
    lines = [...(snapshot?.scrollback?.lines ?? []), ...(snapshot?.screen ?? [])];
    if (predicate(lines)) return lines;
    await sleep(50);
  }
  throw new Error(`screen condition not met; lines:\n${lines.join('\n')}`);
}
