/**
 * The tool surface as a client sees it: six strict tools with titles, descriptions, annotations
 * and output schemas; stable error codes readable through the SDK Client without throwing.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findComposites } from '../../src/tools/json-schema.js';
import { ROOT } from '../helpers/paths.js';
import { type Harness, startServer } from '../helpers/server.js';
import { TOOL_NAMES } from '../helpers/tool-calls.js';

describe('tool contract', () => {
  let h: Harness;
  before(async () => {
    h = await startServer();
  });
  after(() => h.close());

  it('lists exactly the six tools, each strict, titled, annotated, with an output schema', async () => {
    const { tools } = await h.client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      TOOL_NAMES,
    );
    for (const tool of tools) {
      assert.ok(tool.title, `${tool.name} has a title`);
      assert.ok((tool.description ?? '').length > 80, `${tool.name} describes itself`);
      assert.equal(tool.inputSchema.type, 'object');
      assert.equal(
        (tool.inputSchema as { additionalProperties?: unknown }).additionalProperties,
        false,
      );
      assert.deepEqual(findComposites(tool.inputSchema), [], `${tool.name} input is plain`);
      assert.equal(tool.outputSchema?.type, 'object');
      const a = tool.annotations ?? {};
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
        assert.equal(
          typeof (a as Record<string, unknown>)[hint],
          'boolean',
          `${tool.name} ${hint}`,
        );
      }
    }
    const input = tools.find((t) => t.name === 'terminal_input');
    const properties = (input?.inputSchema.properties ?? {}) as Record<string, { items: unknown }>;
    const action = properties.actions?.items as {
      properties: Record<string, unknown>;
      additionalProperties: unknown;
    };
    assert.equal(action.additionalProperties, false, 'actions are strict objects too');
    assert.ok(action.properties.type);
  });

  it('lists exactly what spec/tools.schema.json documents', async () => {
    const { tools } = await h.client.listTools();
    const spec = JSON.parse(readFileSync(join(ROOT, 'spec', 'tools.schema.json'), 'utf8'));
    assert.deepEqual(tools, spec.tools);
  });

  it('rejects unknown fields with INVALID_ARGUMENT before doing anything', async () => {
    const before = await h.call('terminal_list');
    const reply = await h.call('terminal_start', { command: 'true', colums: 80 });
    assert.equal(reply.isError, true);
    assert.equal(reply.data.error?.code, 'INVALID_ARGUMENT');
    assert.match(reply.text, /unknown field "colums"/);
    const afterList = await h.call('terminal_list');
    assert.deepEqual(afterList.data.sessions, before.data.sessions, 'no session was started');
  });

  it('reports SESSION_NOT_FOUND with a next step, and close of an unknown id is closed:false', async () => {
    const reply = await h.call('terminal_snapshot', { sessionId: 't999' });
    assert.equal(reply.isError, true);
    assert.equal(reply.data.error?.code, 'SESSION_NOT_FOUND');
    assert.match(reply.data.error?.message ?? '', /terminal_list/);
    const input = await h.call('terminal_input', {
      sessionId: 't999',
      actions: [{ type: 'text', text: 'x' }],
    });
    assert.equal(input.data.error?.code, 'SESSION_NOT_FOUND');
    assert.equal(input.data.actionsCompleted, 0);
    assert.equal(input.data.inputSent, false);
    const close = await h.call('terminal_close', { sessionId: 't999' });
    assert.equal(close.isError, false);
    assert.equal(close.data.closed, false);
  });

  it('rejects out-of-range sizes and timings, and a deadline shorter than its quiet interval', async () => {
    for (const args of [
      { command: 'true', cols: 1, rows: 10 },
      { command: 'true', cols: 501, rows: 10 },
      { command: 'true', cols: 80, rows: 201 },
      { command: 'true', settleMs: -1 },
      { command: 'true', settleTimeoutMs: 0 },
      { command: 'true', settleMs: 500, settleTimeoutMs: 100 },
      { command: 'true', settleTimeoutMs: 100 },
    ]) {
      const reply = await h.call('terminal_start', args);
      assert.equal(reply.data.error?.code, 'INVALID_ARGUMENT', JSON.stringify(args));
    }
    const list = await h.call('terminal_list');
    assert.deepEqual(list.data.sessions, []);
  });

  it('fails a missing cwd or shell with SPAWN_FAILED and leaves no session', async () => {
    const noCwd = await h.call('terminal_start', { command: 'true', cwd: '/nonexistent/dir' });
    assert.equal(noCwd.data.error?.code, 'SPAWN_FAILED');
    assert.match(noCwd.text, /does not exist/);
    const noShell = await h.call('terminal_start', { command: 'true', shell: '/no/such/shell' });
    assert.equal(noShell.data.error?.code, 'SPAWN_FAILED');
    const list = await h.call('terminal_list');
    assert.deepEqual(list.data.sessions, []);
  });
});
