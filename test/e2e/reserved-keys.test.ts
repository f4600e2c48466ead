/**
 * `__proto__`, `constructor` and `prototype` are refused as names anywhere in a tool's arguments
 * (top level, env, an action, find, region) with INVALID_ARGUMENT naming the field, and nothing
 * is started, sent, resized or closed. Sent as raw JSON lines (raw POST bodies over HTTP, with
 * AGENT_TTY_TEST_TRANSPORT=http), where JSON.parse makes `__proto__` an own key, and through the
 * SDK client. Contract: spec/guarantees.md (Guarantee 4).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newToken, rawHttpSession, startHttpServer } from '../helpers/http-server.js';
import { childPids } from '../helpers/processes.js';
import { startRawRpcServer, type ToolResult } from '../helpers/raw-rpc.js';
import { type Harness, startServer, TEST_TRANSPORT } from '../helpers/server.js';
import { sleep } from '../helpers/wait.js';

type Case = readonly [tool: string, argsJson: string, path: string];

/** `$S` stands for an open session's id. */
const CASES: readonly Case[] = [
  ['terminal_start', '{"__proto__":"x","command":"echo STARTED; sleep 30"}', '__proto__'],
  ['terminal_start', '{"__proto__":{"command":"echo STARTED; sleep 30"}}', '__proto__'],
  ['terminal_start', '{"constructor":"x","command":"echo STARTED; sleep 30"}', 'constructor'],
  ['terminal_start', '{"prototype":{},"command":"echo STARTED; sleep 30"}', 'prototype'],
  [
    'terminal_start',
    '{"command":"echo STARTED; sleep 30","env":{"__proto__":"V"}}',
    'env.__proto__',
  ],
  [
    'terminal_start',
    '{"command":"echo STARTED; sleep 30","env":{"constructor":"V"}}',
    'env.constructor',
  ],
  [
    'terminal_start',
    '{"command":"echo STARTED; sleep 30","env":{"prototype":"V"}}',
    'env.prototype',
  ],
  [
    'terminal_input',
    '{"sessionId":"$S","__proto__":{},"actions":[{"type":"text","text":"SENT"}]}',
    '__proto__',
  ],
  [
    'terminal_input',
    '{"sessionId":"$S","actions":[{"type":"text","text":"SENT","__proto__":{"type":"key"}}]}',
    'actions[0].__proto__',
  ],
  [
    'terminal_input',
    '{"sessionId":"$S","actions":[{"type":"text","text":"SENT"},{"type":"key","key":"Enter","constructor":1}]}',
    'actions[1].constructor',
  ],
  [
    'terminal_input',
    '{"sessionId":"$S","actions":[{"type":"text","text":"SENT"},{"type":"wait","durationMs":10,"prototype":1}]}',
    'actions[1].prototype',
  ],
  ['terminal_snapshot', '{"sessionId":"$S","find":{"text":"x","__proto__":{}}}', 'find.__proto__'],
  [
    'terminal_snapshot',
    '{"sessionId":"$S","region":{"row":1,"column":1,"rows":1,"cols":1,"prototype":0}}',
    'region.prototype',
  ],
  ['terminal_resize', '{"sessionId":"$S","cols":50,"rows":10,"__proto__":null}', '__proto__'],
  ['terminal_list', '{"__proto__":{}}', '__proto__'],
  ['terminal_close', '{"sessionId":"$S","constructor":true}', 'constructor'],
];

/** A server that takes tool calls as JSON text: raw lines on stdio, or raw POSTs over HTTP. */
interface RawServer {
  readonly pid: number;
  /** tools/call with `argsJson` as it is; the reply, result or JSON-RPC error. */
  call(tool: string, argsJson: string): Promise<{ result?: unknown; error?: unknown }>;
  stop(): Promise<unknown>;
}

async function startRaw(): Promise<RawServer> {
  const params = (tool: string, argsJson: string) => `{"name":"${tool}","arguments":${argsJson}}`;
  if (TEST_TRANSPORT === 'http') {
    const token = newToken();
    const http = await startHttpServer({ env: { AGENT_TTY_TOKEN: token } });
    const session = await rawHttpSession(http.url, token);
    return {
      pid: http.child.pid as number,
      call: (tool, argsJson) => session.requestJson('tools/call', params(tool, argsJson)),
      stop: () => http.stop(),
    };
  }
  const server = await startRawRpcServer();
  return {
    pid: server.pid,
    call: async (tool, argsJson) => server.sendJson('tools/call', params(tool, argsJson)).reply,
    stop: () => server.stop(),
  };
}

/** The tool result of a call that must not be a JSON-RPC error. */
async function tool(server: RawServer, name: string, args: unknown = {}): Promise<ToolResult> {
  const reply = await server.call(name, JSON.stringify(args));
  if (reply.error) throw new Error(`${name}: JSON-RPC error ${JSON.stringify(reply.error)}`);
  return reply.result as ToolResult;
}

function assertRefused(result: ToolResult, path: string, what: string): void {
  const error = result.structuredContent?.error;
  assert.equal(result.isError, true, `${what}: refused`);
  assert.equal(error?.code, 'INVALID_ARGUMENT', `${what}: ${JSON.stringify(error)}`);
  const issues = error?.details.issues as { path: string; message: string }[];
  assert.equal(issues[0]?.path, path, `${what}: names the field`);
  assert.match(error?.message ?? '', /is not accepted as a name/, what);
}

describe('reserved names in arguments', () => {
  describe(
    TEST_TRANSPORT === 'http' ? 'as raw JSON-RPC bodies over HTTP' : 'as raw JSON-RPC lines',
    () => {
      let server: RawServer;
      let sessionId: string;
      before(async () => {
        server = await startRaw();
        const started = await tool(server, 'terminal_start', {
          command: 'cat',
          login: false,
          cols: 80,
          rows: 24,
        });
        sessionId = started.structuredContent?.sessionId as string;
        assert.ok(sessionId, JSON.stringify(started.structuredContent));
      });
      after(() => server.stop());

      it('refuses each with INVALID_ARGUMENT naming the field, doing nothing', async () => {
        const before = childPids(server.pid);
        for (const [name, json, path] of CASES) {
          const args = json.replace('$S', sessionId);
          const reply = await server.call(name, args);
          assert.equal(reply.error, undefined, `${name} ${args}: a tool result`);
          assertRefused(reply.result as ToolResult, path, `${name} ${args}`);
        }
        await sleep(300);
        const listed = (await tool(server, 'terminal_list')).structuredContent as {
          sessions: { sessionId: string; cols: number; rows: number }[];
        };
        assert.deepEqual(
          listed.sessions.map((s) => [s.sessionId, s.cols, s.rows]),
          [[sessionId, 80, 24]],
          'nothing started, resized or closed',
        );
        assert.deepEqual(childPids(server.pid), before, 'no process started');
        const screen = (await tool(server, 'terminal_snapshot', { sessionId }))
          .structuredContent as {
          snapshot: { screen: string[] };
        };
        assert.doesNotMatch(screen.snapshot.screen.join('\n'), /SENT|STARTED/, 'nothing sent');
      });
    },
  );

  describe('through the SDK client', () => {
    let harness: Harness;
    let sessionId: string;
    before(async () => {
      harness = await startServer();
      ({ id: sessionId } = await harness.start({ command: 'cat', login: false }));
    });
    after(() => harness.close());

    it('refuses each with INVALID_ARGUMENT naming the field, doing nothing', async () => {
      for (const [tool, json, path] of CASES) {
        const args = JSON.parse(json.replace('$S', sessionId)) as Record<string, unknown>;
        const result = await harness.client.callTool({ name: tool, arguments: args });
        assertRefused(result as ToolResult, path, `${tool} ${json}`);
      }
      const list = await harness.call('terminal_list');
      assert.deepEqual(
        list.data.sessions?.map((s) => s.sessionId),
        [sessionId],
      );
      const snap = await harness.call('terminal_snapshot', { sessionId });
      assert.doesNotMatch(snap.data.snapshot?.screen.join('\n') ?? '', /SENT|STARTED/);
    });
  });
});
